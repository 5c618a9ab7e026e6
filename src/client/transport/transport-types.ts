// The shapes a Transport takes and gives: its options, its answers and its counters.
import type { Dispatcher } from 'undici';
import type { MsnapError } from '../../errors.js';
import type { RateHeaders } from '../pacing/pacer.js';

/** How to reach the service and, for tests, every source of time and chance. */
export interface TransportOptions {
  /** e.g. http://127.0.0.1:8787 (a trailing slash is fine). */
  baseUrl: string;
  /** Missing: every request fails with AuthError saying how to set one. */
  apiKey?: string;
  /** Header that carries the key; default `x-api-key`. */
  authScheme?: 'x-api-key' | 'bearer';
  /** undici dispatcher; tests pass a MockAgent; default a keep-alive Agent the client owns. */
  dispatcher?: Dispatcher;
  /** Epoch ms clock. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** Every HTTP attempt (status 0 for a network failure); the URL never holds the key. */
  onRequest?: (info: { url: string; status: number; ms: number; attempt: number }) => void;
  /** Retries of a GET on network errors and 5xx; default 5. */
  maxRetries?: number;
  /** Consecutive 429s tolerated per request before RateLimitedError; default 10. */
  maxRateLimitRetries?: number;
  /** Pace requests under the key's limits; default true. */
  pacing?: boolean;
  /** Connect, headers and body-idle timeout per attempt; default 30 s (`--timeout`, MSNAP_TIMEOUT). */
  timeoutMs?: number;
  /** Share the key's pace with other msnap processes through a state file in this directory. */
  paceStateDir?: string;
  /** Told before each retry after a network failure or timeout: what happened and how long until the next try. */
  onRetry?: (info: { reason: string; waitMs: number; retry: number; of: number }) => void;
}

/** Counters for `--verbose` and the benches (429s received must stay 0 when pacing). */
export interface ClientStats {
  requests: number;
  responses429: number;
  retries: number;
  pacedMs: number;
}

/** Query-string values of one request; undefined ones are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** A parsed 2xx body, the round-trip time of the attempt that got it and its rate-limit headers. */
export interface Answer {
  body: unknown;
  ms: number;
  rate: RateHeaders;
}

/** A 2xx body as it came (not yet parsed), with what `json()` needs to parse it the way `get()` does. */
export interface RawAnswer {
  bytes: Buffer;
  ms: number;
  rate: RateHeaders;
  status: number;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Turns a final non-2xx answer into the error the CLI shows; a dialect passes its own. */
export type ErrorMapper = (status: number, body: unknown, url: string, key: string | undefined) => MsnapError;
