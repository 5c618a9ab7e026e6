// Learning a market's id pattern while an SQLite writer stores its rows, and storing the ids that
// follow no pattern (snapshot_ids). The pattern arithmetic itself is backend-neutral (core/snapshot-ids.ts).
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { SourceIdNotes } from '../../bulk-store.js';
import { idAt, inferPattern, patternOf, type IdPattern } from '../../core/snapshot-ids.js';

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
export class SourceIds implements SourceIdNotes {
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
