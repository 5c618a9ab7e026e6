// The seam between the client facade and one API version of the service: each dialect builds its
// paths, spells its parameters and maps its records, envelopes and errors back to the contract's.
// Listing, paging, pacing and warnings stay above it, the same for every dialect.
import type { Coin, Market } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import type { PaceConfig } from '../pacing/pacer.js';
import type { Transport } from '../transport/transport.js';
import type { AtResult, Health, Limits, MarketsPage, MarketsQuery, SnapshotsPage, SnapshotsQuery } from '../types.js';

/** The API versions the client speaks. */
export type ApiName = 'v1' | 'v4';

/** What `--api` / `MSNAP_API` / a stored profile may say: a version, or `auto` (probe for v4). */
export type ApiChoice = ApiName | 'auto';

/** Every `--api` value, for flag checks and help. */
export const API_CHOICES: readonly ApiChoice[] = ['v1', 'v4', 'auto'];

/** Use to validate an API version from any source. */
export function checkApi(value: string, source: string): ApiChoice {
  const lower = value.toLowerCase();
  if ((API_CHOICES as readonly string[]).includes(lower)) return lower as ApiChoice;
  throw new UsageError(`${source}: '${value}' is not an API version; use one of ${API_CHOICES.join(', ')}`);
}

/** What `limits()` learned, with the pacing it implies. */
export interface DialectLimits {
  limits: Limits;
  pace: PaceConfig;
}

/** Use to pace by a limits answer: no minute cap (null) is a log the burst can never fill. */
export function paceOf(limits: Limits): PaceConfig {
  const burst = limits.rate_limit.burst_per_second;
  return { perMinute: limits.rate_limit.requests_per_minute ?? burst * 60, burst };
}

/** Use to implement one API version; every method is one request (or, where stated, a few). */
export interface Dialect {
  readonly name: ApiName;
  /** False when its market records may lack `snapshot_count` (v4): the facade counts each one that does. */
  readonly marketsCounted: boolean;
  /** With marketsCounted false: true for a listed market whose record had no `snapshot_count` (the facade asks). */
  countless?(market: Market): boolean;
  /** The coins a market list must be asked for one at a time (v4 needs `coin`); [undefined] = all at once. */
  listCoins(coin: Coin | undefined): (Coin | undefined)[];
  health(t: Transport): Promise<Health>;
  /** One request: the key's plan and limits, enough to pace by (`auto` probes v4 with it). */
  limits(t: Transport): Promise<DialectLimits>;
  /** For `msnap limits`: what the pacing answer leaves out (v4 has no trial or key count). */
  completeLimits?(t: Transport, base: Limits): Promise<Limits>;
  marketsPage(t: Transport, q: MarketsQuery): Promise<MarketsPage>;
  market(t: Transport, id: string): Promise<Market>;
  snapshotsPage(t: Transport, id: string, q: SnapshotsQuery, signal?: AbortSignal): Promise<SnapshotsPage>;
  at(t: Transport, marketId: string, ts: number, includeOrderbook?: boolean): Promise<AtResult>;
}
