// The records and queries that cross the client/CLI boundary, and `MsnapApi`, the part of the
// client core that commands use: one definition each, so the compiler guards the boundary.
import type { PaperApi } from './paper/paper-types.js';
import type { RowsForm, SnapshotPage } from './pages/row-page.js';
import type { Coin, Market, MarketStatus, MarketType, Snapshot } from '../domain/market.js';
import type { RowLayout } from '../domain/row-layout.js';
import type { StreamCapable } from './watch/stream-events.js';

/** What `/api/health` says, with the round-trip time of the answering attempt. */
export interface Health {
  status: string;
  time: number;
  version: string;
  rttMs: number;
}

/** The `/api/v1/limits` body as the contract defines it; `usage` is null when the service omits it. */
export interface Limits {
  plan: string;
  trial: { active: boolean; ends_at: number | null } | null;
  /** `requests_per_minute` null: no minute cap (a v4 plan-limits answer may say so). */
  rate_limit: { requests_per_minute: number | null; burst_per_second: number };
  data_window: Record<MarketType, number> | null;
  api_keys: { active: number | null; max: number | null } | null;
  usage: { remaining: number; reset: number } | null;
}

/** The at-timestamp answer: the nearest snapshot and how far from `ts` it lies. */
export interface AtResult {
  market_id: string;
  ts: number;
  delta_ms: number;
  snapshot: Snapshot;
}

/** A market listing that stopped at the plan's data window rather than at the end of the data. */
export interface WindowEnd {
  /** The service's own words (its clamping warning or its 403 message). */
  message: string;
  /** From /api/v1/limits, when it was read. */
  plan?: string;
  /** How many markets of `marketType` the window holds, when known. */
  cap?: number;
  marketType?: MarketType;
  /** The whole window (per type), for a list over every type. */
  window?: Record<string, number>;
  /** The list spanned every coin: the caps hold per coin. */
  perCoin?: boolean;
}

/** Query of one page of the markets list; names as the CLI flags, sent as the contract's parameters. */
export interface MarketsQuery {
  coin?: Coin;
  marketType?: MarketType;
  status?: MarketStatus;
  limit?: number;
  offset?: number;
  startTime?: number;
  endTime?: number;
}

/** Query of a market listing across pages: one page, up to `max` markets, or `all` of them. */
export interface MarketsListingQuery extends MarketsQuery {
  all?: boolean;
  max?: number;
  /** With `all`: the listing stopped at the plan's data window (instead of the clamping warning). */
  onWindowEnd?: (end: WindowEnd) => void;
}

/** One page of the markets list. */
export interface MarketsPage {
  markets: Market[];
  total: number;
  limit: number;
  offset: number;
  warning?: string;
  /** Where the next page starts, null when this is the last (v4's next_offset/has_more); absent: page by total. */
  nextOffset?: number | null;
}

/** Query of one page of a market's snapshots. */
export interface SnapshotsQuery {
  limit?: number;
  offset?: number;
  from?: number;
  to?: number;
  includeOrderbook?: boolean;
  /** How the page's rows come ready beside its records (row-page.ts): CSV unless asked for as columns. */
  rowsAs?: RowsForm;
}

/** What `snapshots()` and `snapshotPages()` stream: a market's snapshots within from/to. */
export interface SnapshotsStreamQuery {
  from?: number;
  to?: number;
  includeOrderbook?: boolean;
  /** How each page's rows come ready beside its records (row-page.ts): CSV unless asked for as columns. */
  rowsAs?: RowsForm;
  /** Rows asked per request; the service may clamp it (default DEFAULT_SNAPSHOT_PAGE). */
  pageSize?: number;
  /** Told after each page arrives (page number from 1, its rows, the service's total). */
  onPage?: (p: { page: number; rows: number; total: number }) => void;
}

/** One page of a market's snapshots. */
export interface SnapshotsPage {
  market: Market | null;
  /** The page's snapshots (see snapshot-page.ts: rows built on demand, ready CSV when read from bytes). */
  page: SnapshotPage;
  total: number;
  limit: number;
  offset: number;
  warning?: string;
  /** Where the next page starts, null when this is the last (v4's next_offset/has_more); absent: page by total. */
  nextOffset?: number | null;
}

/** Export text a source wrote itself (ASCII bytes, or a string), and the rows it holds. */
export interface TextPage {
  text: string | Uint8Array;
  rows: number;
}

/** Use wherever a command needs the service: `MsnapClient` implements it, command tests fake it. */
/** What `at` may ask beyond the market and time. */
export interface AtOptions {
  includeOrderbook?: boolean;
}

/**
 * What a source offers beyond the reads every MsnapApi has, declared in one place so commands ask
 * for a fast path or a service fact instead of probing for optional methods.
 */
/** GET /v1/clock (msnap serve's own): the instant its data is shown at, and how that clock runs. */
export interface ServiceClock {
  now: number;
  /** `static` (a store served as is), `live` (--live) or `replay` (--replay). */
  mode: 'static' | 'live' | 'replay';
  /** Where a replay stops; null when the clock never stops. */
  until: number | null;
}

export interface ApiCapabilities {
  /** Present when the source talks to a service (not a local store). */
  readonly service?: {
    /** The API dialect spoken (`v1`, `v4`; `auto` probes once); pull records it as a market's origin. */
    dialect(): Promise<string>;
    /** The least time `requests` more requests take at the key's limits (undefined while unknown). */
    paceEstimateMs(requests: number): number | undefined;
  };
  /** Paper trading: orders, account, history and reset (msnap serve only; the hosted service answers 404). */
  readonly paper?: PaperApi;
  /**
   * Present for local stores that write export text themselves (SQLite): the same snapshots as
   * snapshotPages, as text in `layout` straight from the stored values, byte for byte what the
   * exporter writes from the records.
   */
  readonly snapshotText?: (id: string, q: SnapshotsStreamQuery, layout: RowLayout) => AsyncIterable<TextPage>;
  /** Present for a service client: the live stream (`/v1/stream`); where the service has none, opening answers `absent`. */
  readonly stream?: StreamCapable;
  /** Present for a service client: msnap serve's data clock (undefined where the service has none, as the hosted one). */
  readonly clock?: () => Promise<ServiceClock | undefined>;
}

export interface MsnapApi {
  /** The fast paths and service facts this source has (constant for the source's life). */
  capabilities(): ApiCapabilities;
  health(): Promise<Health>;
  limits(): Promise<Limits>;
  markets(q: MarketsListingQuery): AsyncIterable<Market>;
  /** One market by id (NotFoundError when unknown). */
  market(id: string): Promise<Market>;
  /** A market's snapshots a page at a time (exports render whole pages). */
  snapshotPages(id: string, q: SnapshotsStreamQuery): AsyncIterable<SnapshotPage>;
  /** The snapshot nearest `ts` (404 when none within 2 s); with `includeOrderbook`, its depth where stored. */
  at(marketId: string, ts: number, opts?: AtOptions): Promise<AtResult>;
  close(): Promise<void>;
}
