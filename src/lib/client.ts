// `import … from 'msnap'`: the service client as a library. createClient takes what the CLI's
// global flags take and builds the same client core (pacing shared with the CLI through the same
// state files, the same retries and errors); the CLI's commands are built on it.
import type { Dispatcher } from 'undici';
import { MsnapClient } from '../client/client.js';
import { checkApi, type ApiChoice } from '../client/dialects/dialect.js';
import { paceStateDir } from '../client/pacing/state-file.js';
import { AuthError, UsageError } from '../errors.js';
import { checkBaseUrl, DEFAULT_BASE_URL } from '../client/base-url.js';
import { MsnapReader } from './reader.js';

export { MsnapReader, type MarketSelection, type SnapshotRange, type Time } from './reader.js';
export * from '../errors.js';
export type { Coin, Market, MarketStatus, MarketType, Snapshot } from '../domain/market.js';
export type { AtResult, Health, Limits, MarketsListingQuery, WindowEnd } from '../client/types.js';
export type { PaperAccount, PaperApi, PaperLimitRequest, PaperOrder, PaperOrderRequest, PaperOrdersPage, PaperPosition } from '../client/paper/paper-types.js';
export type { ApiChoice } from '../client/dialects/dialect.js';

/** The CLI's global flags as options (`--base-url`, `--api-key`, `--api`, `--auth-scheme`, `--timeout`). */
export interface ClientOptions {
  /** Default http://127.0.0.1:8787 (a local `msnap serve`). */
  baseUrl?: string;
  apiKey?: string;
  /** True: no key is needed; only the public paths (health) answer, anything else is an AuthError. */
  allowNoKey?: boolean;
  /** v1, v4 or auto (default, as the CLI: the dialect with the fewest requests, see docs/cli-notes.md). */
  api?: ApiChoice;
  authScheme?: 'x-api-key' | 'bearer';
  /** Per-attempt connect/answer timeout in ms (default 30,000; at most an hour). */
  timeoutMs?: number;
  /** The service's clamping warnings, once per distinct text (the CLI's `msnap: warning:`). */
  onWarning?: (message: string) => void;
  /** Notes about a selection the data window cut short, or a retired v1 (the CLI's `msnap: note:`). */
  onNote?: (message: string) => void;
  /** Before each retry after a network failure or timeout. */
  onRetry?: (info: { reason: string; waitMs: number; retry: number; of: number }) => void;
  /** Every HTTP attempt (the CLI's --verbose); the URL never holds the key. */
  onRequest?: (info: { url: string; status: number; ms: number; attempt: number }) => void;
  /**
   * Where a key's pace is shared with other msnap processes (default: the CLI's, $MSNAP_STATE_DIR
   * or ~/.local/state/msnap, so a script and the CLI on one key never exceed its limits together);
   * false: pace this client alone.
   */
  paceStateDir?: string | false;
  /** An undici dispatcher (a proxy Agent, a MockAgent in tests); default a keep-alive Agent the client owns. */
  dispatcher?: Dispatcher;
  /** Epoch ms clock and sleep, for tests; default the real ones. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Use to read the service: the CLI's client for one key (AuthError without a key, UsageError for a bad option). */
export function createClient(options: ClientOptions): MsnapReader {
  const baseUrl = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, 'baseUrl');
  if (!options.apiKey && options.allowNoKey !== true) throw new AuthError('no API key configured', 'pass apiKey (the CLI takes --api-key or MSNAP_API_KEY)');
  const api = checkApi(options.api ?? 'auto', 'api');
  const t = options.timeoutMs;
  if (t !== undefined && !(Number.isFinite(t) && t > 0 && t <= 3_600_000)) {
    throw new UsageError(`timeoutMs must be a number of milliseconds between 0 and 3,600,000, got ${t}`);
  }
  const now = options.now ?? (() => Date.now());
  const stateDir = options.paceStateDir === false ? undefined : (options.paceStateDir ?? paceStateDir(process.env));
  const core = new MsnapClient({
    baseUrl,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    authScheme: options.authScheme ?? 'x-api-key',
    api,
    now,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(t !== undefined ? { timeoutMs: t } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    ...(options.onNote ? { onNote: options.onNote } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(stateDir !== undefined ? { paceStateDir: stateDir } : {}),
  });
  return new MsnapReader(core, { now, ...(options.onNote ? { onNote: options.onNote } : {}) });
}
