// What a store already holds of a market `msnap pull` copies: its rows, the newest one, and how far
// its orderbook depth was fetched, and the rule for what a pull need not fetch again (every store).

/** A market as the store holds it now. */
export interface LocalMarketState {
  exists: boolean;
  count: number;
  /** Time of the newest stored snapshot. */
  lastTime: number | undefined;
  /** Stored rows before this time were fetched with depth (--orderbook); undefined: none were. */
  depthThrough: number | undefined;
}

/** A market's state row as every store's query returns it. */
export interface MarketStateRow {
  count: number;
  last_t: number | null;
  start_time: number;
  depth_through: number | null;
}

/** Use in every store: the state of a market from its row (undefined: not stored). */
export function toLocalState(r: MarketStateRow | undefined): LocalMarketState {
  if (!r) return { exists: false, count: 0, lastTime: undefined, depthThrough: undefined };
  return {
    exists: true,
    count: r.count,
    lastTime: r.last_t === null ? undefined : r.start_time + r.last_t,
    depthThrough: r.depth_through ?? undefined,
  };
}

/**
 * Rows a pull need not fetch again: every stored one, or with depth asked for, those fetched with
 * it. A number when the state tells; else `{ rowsBefore }`: the stored rows before that time, which
 * the store counts.
 */
export function heldByState(s: LocalMarketState, withDepth: boolean): number | { rowsBefore: number } {
  if (!withDepth) return s.count;
  if (s.depthThrough === undefined || s.lastTime === undefined) return 0;
  if (s.depthThrough > s.lastTime) return s.count;
  return { rowsBefore: s.depthThrough };
}

/** Where the pulled data came from, stored per market (market_origin). */
export interface Origin {
  baseUrl: string;
  dialect: string;
  pulledAt: number;
}

/** Markets pulled from one source in one dialect, and the last time one was pulled. */
export interface OriginSummary {
  baseUrl: string;
  dialect: string;
  markets: number;
  lastPulledAt: number;
}
