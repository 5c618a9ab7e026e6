// Snapshot ids as the source gave them, at almost no storage cost: a market's ids follow a
// pattern from its offsets (one id per ms, or a fixed step per 125 ms slot), learned from its
// first two rows, and only ids that follow no pattern are stored one by one (snapshot_ids).
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
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

interface MarketIds {
  pattern: IdPattern | undefined;
  /** The first row of a market with no pattern yet, until a second row decides it. */
  first: [number, number] | undefined;
  added: number;
}

/**
 * Use inside a writer's transaction: note(market, t, id) for every row that carries a source id;
 * finish() before commit stores the patterns and exception counts.
 */
export class SourceIds {
  private readonly markets = new Map<number, MarketIds>();
  private readonly load: Statement;
  private readonly setPattern: Statement;
  private readonly insert: Statement;
  private readonly count: Statement;

  constructor(db: Database.Database) {
    this.load = db.prepare('SELECT id, id_base, id_step, snapshot_count FROM markets WHERE id = ?');
    this.setPattern = db.prepare('UPDATE markets SET id_base = ?, id_step = ? WHERE id = ?');
    this.insert = db.prepare('INSERT OR IGNORE INTO snapshot_ids (market, t, id) VALUES (?, ?, ?)');
    this.count = db.prepare('UPDATE markets SET id_exceptions = id_exceptions + ? WHERE id = ?');
  }

  /** Records that the row at offset t of `market` has the source id `id`. */
  note(market: number, t: number, id: number): void {
    let m = this.markets.get(market);
    if (!m) m = this.start(market);
    if (m.pattern) {
      this.check(market, m, t, id);
      return;
    }
    if (!m.first) {
      m.first = [t, id];
      return;
    }
    this.decide(market, m, inferPattern(m.first[0], m.first[1], t, id));
    this.check(market, m, t, id);
  }

  /** Stores what is still pending (a market with one row) and the exception counts. */
  finish(): void {
    for (const [market, m] of this.markets) {
      if (!m.pattern && m.first) this.decide(market, m, inferPattern(m.first[0], m.first[1]));
      if (m.added > 0) this.count.run(m.added, market);
    }
    this.markets.clear();
  }

  private start(market: number): MarketIds {
    const r = this.load.get(market) as { id: number; id_base: number | null; id_step: number | null; snapshot_count: number };
    // A market that already holds rows under msnap's own ids keeps them; new ids that differ are exceptions.
    const known = r.id_base !== null || r.snapshot_count > 0;
    const m: MarketIds = { pattern: known ? patternOf(r) : undefined, first: undefined, added: 0 };
    this.markets.set(market, m);
    return m;
  }

  private decide(market: number, m: MarketIds, pattern: IdPattern): void {
    m.pattern = pattern;
    this.setPattern.run(pattern.base, pattern.step, market);
    const first = m.first;
    m.first = undefined;
    if (first) this.check(market, m, first[0], first[1]);
  }

  private check(market: number, m: MarketIds, t: number, id: number): void {
    if (idAt(m.pattern!, t) === id) return;
    m.added += this.insert.run(market, t, id).changes;
  }
}
