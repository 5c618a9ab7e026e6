// `serve` behind a reverse proxy, and a guard for when it is not. With --trust-proxy, the client
// address comes from X-Forwarded-For and the scheme from X-Forwarded-Proto, believed only when the
// connection itself comes from a trusted proxy, and read from the right (the part that proxy
// wrote). --public-url names the origin browsers see when the proxy rewrites Host. The Host
// allow-list refuses names this server does not answer for: a page on another domain whose DNS
// turns to 127.0.0.1 (DNS rebinding) must not reach a loopback-only server's forms.
import { isIP } from 'node:net';

/** Proxy and Host settings of one server; all optional. */
export interface ProxySettings {
  /** Addresses of proxies whose X-Forwarded-* headers are believed ('loopback' = 127.0.0.0/8 and ::1). */
  trusted: readonly string[];
  /** The origin browsers use (https://data.example.com), when the proxy rewrites Host. */
  publicUrl?: URL;
  /**
   * Host names (any port) requests may carry, '*' for any, LOCAL_HOSTS for IP literals and dot-less
   * names; undefined: any. startServer completes the list with allowedHostsFor.
   */
  allowedHosts?: readonly string[];
}

/**
 * In an allow-list: IP literals and names without a dot (localhost, a LAN name). A rebinding
 * attack needs a name in the attacker's DNS zone, which has a dot.
 */
export const LOCAL_HOSTS = 'local';

/** Who is asking, as far as the proxy settings let us know. */
export interface Client {
  address: string;
  /** The browser spoke https to the trusted proxy. */
  https: boolean;
}

/** `::ffff:10.0.0.1` is `10.0.0.1`. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function isTrusted(address: string, trusted: readonly string[]): boolean {
  const a = plain(address);
  return trusted.some((t) => (t === 'loopback' ? a === '::1' || a.startsWith('127.') : plain(t) === a));
}

function lastValue(header: string | string[] | undefined): string[] {
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  return text.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

/** Use per request: the client's address and scheme, from the forwarded headers only when the peer is a trusted proxy. */
export function clientOf(peer: string, headers: Record<string, string | string[] | undefined>, settings: ProxySettings | undefined): Client {
  if (!settings?.trusted.length || !isTrusted(peer, settings.trusted)) return { address: peer, https: false };
  // Walk from the right past our own proxies: the first other address is who connected to them.
  const chain = lastValue(headers['x-forwarded-for']);
  let address = peer;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i]!;
    if (!isIP(plain(hop))) break;
    address = plain(hop);
    if (!isTrusted(hop, settings.trusted)) break;
  }
  const proto = lastValue(headers['x-forwarded-proto']).at(-1)?.toLowerCase();
  return { address, https: proto === 'https' };
}

/** The host name of a Host header, lower case, without its port. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/** Use per request: false when the Host header names a host this server does not answer for. */
export function hostAllowed(host: string | undefined, settings: ProxySettings | undefined): boolean {
  const allowed = settings?.allowedHosts;
  if (allowed === undefined || host === undefined) return true;
  const name = hostName(host);
  const local = !name.includes('.') || isIP(name) !== 0;
  return allowed.some((a) => a === '*' || a === name || (a === LOCAL_HOSTS && local));
}

/** The Host names a server listening on `listenHost` answers for: on loopback only local names (and the public URL's and `named`), elsewhere `named` or any. */
export function allowedHostsFor(listenHost: string, publicUrl: URL | undefined, named: readonly string[]): string[] | undefined {
  const loopback = listenHost === 'localhost' || listenHost === '::1' || listenHost.startsWith('127.');
  if (!loopback && named.length === 0) return undefined;
  return [...new Set([LOCAL_HOSTS, ...named, ...(publicUrl ? [publicUrl.hostname.toLowerCase()] : [])])];
}
