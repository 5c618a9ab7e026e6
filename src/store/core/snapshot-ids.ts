// Snapshot ids as the source gave them, at almost no storage cost: a market's ids follow a
// pattern from its offsets (one id per ms, or a fixed step per 125 ms slot), learned from its
// first two rows, and only ids that follow no pattern are stored one by one (snapshot_ids).
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';

/** Snapshot ids are rowid * 1e8 + t for msnap's own markets: unique because t < 1e8 ms (a 24hr market is 86,400,000). */
export const SNAPSHOT_ID_STRIDE = 100_000_000;

/** How a market's ids follow from offsets: base + t (step null), or base + (t / 125) * step. */
export interface IdPattern {
  base: number;
  step: number | null;
}

/** The ids of one page: the market's pattern and the exceptions within the page's range. */
export interface PageIds {
  pattern: IdPattern;
  exceptions?: ReadonlyMap<number, number>;
}

/** Use to read a market row's pattern (id_base null: msnap's own ids). */
export function patternOf(r: { id: number; id_base: number | null; id_step: number | null }): IdPattern {
  return r.id_base === null ? { base: r.id * SNAPSHOT_ID_STRIDE, step: null } : { base: r.id_base, step: r.id_step };
}

/** The id the pattern gives offset t (fractional for a slot pattern off the grid: never a real id). */
export function idAt(p: IdPattern, t: number): number {
  return p.step === null ? p.base + t : p.base + (t / SNAPSHOT_INTERVAL_MS) * p.step;
}

/** Use to turn a market rowid (msnap's own ids) or a page's ids into PageIds. */
export function pageIds(ids: number | PageIds): PageIds {
  return typeof ids === 'number' ? { pattern: { base: ids * SNAPSHOT_ID_STRIDE, step: null } } : ids;
}

/** The pattern two rows (offset, id) imply: per ms if they agree with it, else a slot step, else per ms from the first. */
export function inferPattern(t0: number, id0: number, t1?: number, id1?: number): IdPattern {
  const perMs = { base: id0 - t0, step: null };
  if (t1 === undefined || id1 === undefined || id1 - id0 === t1 - t0) return perMs;
  const slots = (t1 - t0) / SNAPSHOT_INTERVAL_MS;
  if (t0 % SNAPSHOT_INTERVAL_MS !== 0 || !Number.isInteger(slots) || slots <= 0) return perMs;
  const step = (id1 - id0) / slots;
  if (!Number.isSafeInteger(step) || step <= 0) return perMs;
  return { base: id0 - (t0 / SNAPSHOT_INTERVAL_MS) * step, step };
}
