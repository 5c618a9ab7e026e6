// Where the client connects and with which key: flags, then environment, then the key store.
import { UsageError } from '../errors.js';
import type { KeyStore } from './config/key-store.js';
import { DEFAULT_BASE_URL, type GlobalOptions } from './global-options.js';

/** Where the client connects and with what key, after flags, environment and the key store. */
export interface Connection {
  baseUrl: string;
  apiKey?: string;
  authScheme: 'x-api-key' | 'bearer';
  /** Per-attempt connect/answer timeout (--timeout, else MSNAP_TIMEOUT, else the client's 30 s). */
  timeoutMs?: number;
}

/** Use for --timeout / MSNAP_TIMEOUT: seconds, a positive number up to an hour. */
export function timeoutArg(value: string, source: string): number {
  const secs = Number(value.trim().replace(/s$/, ''));
  if (value.trim() === '' || !Number.isFinite(secs) || secs <= 0 || secs > 3600) {
    throw new UsageError(`${source} must be a number of seconds between 0 and 3600 (like 30 or 2.5), got '${value}'`);
  }
  return Math.round(secs * 1000);
}

/** Use to validate a base URL from any source. */
export function checkBaseUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source}: '${value}' is not a URL (like ${DEFAULT_BASE_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: '${value}' must be an http:// or https:// URL`);
  }
  return value.replace(/\/+$/, '');
}

/** Flag, then environment, then the active stored key's URL, then the local default. */
export async function resolveConnection(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  store: () => Promise<KeyStore>,
): Promise<Connection> {
  // The store is opened only when a flag or variable does not already decide.
  let active: ReturnType<KeyStore['active']> | null = null;
  const stored = async (): Promise<ReturnType<KeyStore['active']>> => (active ??= (await store()).active());
  let baseUrl: string;
  if (globals.baseUrl !== undefined) baseUrl = checkBaseUrl(globals.baseUrl, '--base-url');
  else if (env.MSNAP_BASE_URL) baseUrl = checkBaseUrl(env.MSNAP_BASE_URL, 'MSNAP_BASE_URL');
  else {
    const url = (await stored())?.baseUrl;
    baseUrl = url ? checkBaseUrl(url, 'stored key') : DEFAULT_BASE_URL;
  }
  const apiKey = globals.apiKey ?? (env.MSNAP_API_KEY || undefined) ?? (await stored())?.key;
  const timeoutMs =
    globals.timeout !== undefined
      ? timeoutArg(globals.timeout, '--timeout')
      : env.MSNAP_TIMEOUT
        ? timeoutArg(env.MSNAP_TIMEOUT, 'MSNAP_TIMEOUT')
        : undefined;
  return {
    baseUrl,
    authScheme: globals.authScheme ?? 'x-api-key',
    ...(apiKey ? { apiKey } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}
