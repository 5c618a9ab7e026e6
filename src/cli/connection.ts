// Where the client connects and with which key: flags, then environment, then the key store.
import { checkApi, type ApiChoice } from '../client/dialects/dialect.js';
import { checkBaseUrl, DEFAULT_BASE_URL } from '../client/base-url.js';
import { UsageError } from '../errors.js';
import type { KeyStore } from './config/key-store.js';
import type { GlobalOptions } from './global-options.js';

/** Where the client connects and with what key, after flags, environment and the key store. */
export interface Connection {
  baseUrl: string;
  apiKey?: string;
  authScheme: 'x-api-key' | 'bearer';
  api: ApiChoice;
  /** Per-attempt connect/answer timeout (--timeout, else MSNAP_TIMEOUT, else the client's 30 s). */
  timeoutMs?: number;
}

/** Use for --timeout / MSNAP_TIMEOUT: seconds, a positive number up to an hour. */
function timeoutArg(value: string, source: string): number {
  const secs = Number(value.trim().replace(/s$/, ''));
  if (value.trim() === '' || !Number.isFinite(secs) || secs <= 0 || secs > 3600) {
    throw new UsageError(`${source} must be a number of seconds above 0 and at most 3600 (like 30 or 2.5), got '${value}'`);
  }
  return Math.round(secs * 1000);
}

/** Flag, then environment, then the active stored key's URL (and API version), then the defaults. */
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
  let api: ApiChoice;
  if (globals.api !== undefined) api = checkApi(globals.api, '--api');
  else if (env.MSNAP_API) api = checkApi(env.MSNAP_API, 'MSNAP_API');
  else {
    const storedApi = (await stored())?.api;
    api = storedApi ? checkApi(storedApi, 'stored key') : 'auto';
  }
  const timeoutMs =
    globals.timeout !== undefined
      ? timeoutArg(globals.timeout, '--timeout')
      : env.MSNAP_TIMEOUT
        ? timeoutArg(env.MSNAP_TIMEOUT, 'MSNAP_TIMEOUT')
        : undefined;
  return {
    baseUrl,
    authScheme: globals.authScheme ?? 'x-api-key',
    api,
    ...(apiKey ? { apiKey } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}
