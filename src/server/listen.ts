// The socket side: node:http around the pure app, with limits on slow and oversized requests,
// JSON for the errors Node itself would answer, and a graceful close.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { MAX_URL_LENGTH, type App, type AppRequest } from './app.js';
import { BodyTooLarge, readBody } from './form-body.js';
import { withBody } from './request-body.js';
import { allowedHostsFor, clientOf, hostAllowed, type ProxySettings } from './proxy.js';
import { ResponseBudget, type Answer, type ResponseLimits } from './response-writer.js';
import { reasonPhrase } from './http-error.js';
import type { Site } from './site.js';

/** Node answers 431 above this many bytes of request line and headers. */
const MAX_HEADER_BYTES = 16 * 1024;

/** Options of `startServer`. */
export interface ListenOptions {
  app: App;
  /** The web dashboard; it answers only the paths it claims, the API answers every other. */
  dashboard?: Site;
  host: string;
  port: number;
  /** How long `close` waits for in-flight requests before cutting connections. */
  drainMs?: number;
  /** Headers not complete in this many ms get 408 (default 10 s). */
  headersTimeoutMs?: number;
  /** The whole request not complete in this many ms gets 408 (default 30 s, never below the headers timeout). */
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Reverse-proxy trust, the public URL and the Host allow-list. */
  proxy?: ProxySettings;
  /** Bytes held for slow readers, and how long a response may make no progress. */
  responseLimits?: Partial<ResponseLimits>;
  /** How often Node looks for requests past their timeouts (its default, 30 s, lets a stalled client linger). */
  timeoutCheckMs?: number;
  /** Takes WebSocket upgrades (GET /v1/stream); without it an upgrade is answered as a plain request. */
  upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer, address: string) => void;
}

/** A running server: where it listens, and how to stop it. */
export interface RunningServer {
  url: string;
  host: string;
  port: number;
  server: Server;
  /** Stop accepting, finish in-flight requests, close idle keep-alive sockets (the store stays open: its opener closes it). */
  close(): Promise<void>;
}

/** Use to serve `app` on a real socket; resolves once listening (port 0 picks a free port). */
export async function startServer(options: ListenOptions): Promise<RunningServer> {
  const { app } = options;
  let closing = false;

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(headersTimeout, options.requestTimeoutMs ?? 30_000);
  // Node enforces both timeouts only when it sweeps its connections (every 30 s by default), so a
  // stalled client would hold its socket up to 30 s past the timeout; sweep often enough to matter.
  const connectionsCheckingInterval = options.timeoutCheckMs ?? Math.min(1000, headersTimeout);
  // requireHostHeader off: Node would answer a missing Host with a bare 400; ours is JSON with the rate-limit headers.
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, connectionsCheckingInterval, requireHostHeader: false }, (req: IncomingMessage, res: ServerResponse) => {
    // A client that vanishes mid-response is its own problem, never the server's.
    req.on('error', () => {});
    res.on('error', () => {});
    const client = clientOf(req.socket.remoteAddress ?? 'unknown', req.headers, proxy);
    const request = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      // Behind a proxy that rewrites Host, the forms' Origin check compares with the public host.
      headers: proxy?.publicUrl ? { ...req.headers, host: proxy.publicUrl.host } : req.headers,
      remoteAddress: client.address,
    };
    // An answer that was in flight when close() began ends its connection once written, so the
    // drain does not wait for the keep-alive timeout.
    res.once('finish', () => {
      if (closing) req.socket.end();
    });
    budget.serve(req.socket, res, async (): Promise<Answer | undefined> => {
      // Readers are behind: refuse before doing the work, and again if this body would pass the budget.
      if (budget.over()) return app.busy(request.remoteAddress);
      if (req.headers.host === undefined && req.httpVersion === '1.1') {
        res.setHeader('Connection', 'close');
        return app.reject(400, 'The request has no Host header (HTTP/1.1 requires one).', request.remoteAddress);
      }
      if (!hostAllowed(req.headers.host, proxy)) {
        return app.reject(421, 'The Host header names a host this server does not answer for (serve --allowed-hosts, --public-url).', request.remoteAddress);
      }
      const answer = await answerOf(request, req, res);
      if (answer && budget.over(Buffer.byteLength(answer.body))) return app.busy(request.remoteAddress);
      if (answer && closing) answer.headers = { ...answer.headers, Connection: 'close' };
      return answer && client.https ? overHttps(answer) : answer;
    });
  });
  const budget = new ResponseBudget(options.responseLimits);
  // The Host allow-list of this listening address: local names on loopback, plus the named ones.
  const proxy = options.proxy && { ...options.proxy, allowedHosts: allowedHostsFor(options.host, options.proxy.publicUrl, options.proxy.allowedHosts ?? []) };

  /** The answer of one request: the dashboard's for its paths, the API's for every other; undefined drops the connection. */
  async function answerOf(request: AppRequest, req: IncomingMessage, res: ServerResponse): Promise<Answer | undefined> {
    const { dashboard } = options;
    // An oversized target is the API's 414 whoever would have answered it.
    if (!dashboard || request.url.length > MAX_URL_LENGTH || !dashboard.claims(request.url)) {
      // handle never rejects: every failure is already an answer (a 503 or a logged 500); a POST body
      // the client broke off drops the connection.
      return app.handle(await withBody(request, req, res));
    }
    try {
      return await dashboard.handle({ ...request, body: await readBody(req) });
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) return undefined;
      res.setHeader('Connection', 'close');
      return app.reject(413, 'The form is too large.', request.remoteAddress);
    }
  }
  const { upgrade } = options;
  if (upgrade) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!hostAllowed(req.headers.host, proxy)) return void socket.destroy();
      upgrade(req, socket, head, clientOf(req.socket.remoteAddress ?? 'unknown', req.headers, proxy).address);
    });
  }
  server.headersTimeout = headersTimeout;
  server.requestTimeout = requestTimeout;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;

  // Errors Node catches before a request exists (oversized headers, bad syntax, timeouts) still
  // get a JSON body with the rate-limit headers, then the connection closes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || (err.code === 'ECONNRESET' && !socket.bytesWritten)) {
      socket.destroy();
      return;
    }
    const [status, message] = clientErrorStatus(err.code);
    void app.reject(status, message, socket.remoteAddress ?? 'unknown').then((response) => {
      if (!socket.writable) return void socket.destroy();
      const head = [`HTTP/1.1 ${status} ${reasonPhrase(status)}`];
      for (const [name, value] of Object.entries(response.headers)) head.push(`${name}: ${value}`);
      head.push(`Content-Length: ${Buffer.byteLength(response.body)}`, 'Connection: close', '', '');
      socket.end(head.join('\r\n') + response.body);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const drainMs = options.drainMs ?? 10_000;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), drainMs);
      timer.unref();
      await done;
      clearTimeout(timer);
    })();
    return closed;
  };

  return { url: `http://${host}:${address.port}`, host: address.address, port: address.port, server, close };
}

/** An answer the browser got over https (at the proxy): cookies only over https, and HSTS. */
function overHttps(answer: Answer): Answer {
  const headers: Record<string, number | string | string[] | undefined> = { ...answer.headers, 'Strict-Transport-Security': 'max-age=31536000' };
  const set = headers['Set-Cookie'];
  if (set !== undefined) headers['Set-Cookie'] = (Array.isArray(set) ? set : [String(set)]).map((c) => `${c}; Secure`);
  return { ...answer, headers };
}

function clientErrorStatus(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.`];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'The request took too long to arrive.'];
    default:
      return [400, 'The request is not valid HTTP.'];
  }
}
