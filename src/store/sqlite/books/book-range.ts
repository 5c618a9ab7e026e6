// A page's stored books read in one statement: SQLite joins the range's packed pairs into one BLOB
// and lists their times and lengths as text, so a page of 1,000 books costs one row (one Buffer)
// instead of a row and a Buffer per book (a quarter of a served page's time with books). A range
// holding text rows (an older store) is read column by column as before.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { StoredBook } from '../../core/stored-book.js';
import type { PageBookColumns } from '../../core/book-page-bytes.js';

const COMMA = 44;

/** Use to read the stored books of a page's range [from, to) of one market, in t order. */
export class PageBookRange {
  private readonly joined: Statement;
  private readonly columns: { t: Statement; up: Statement; down: Statement };

  constructor(private readonly db: Database.Database) {
    // Every row is a packed BLOB (`other` 0): their bytes concatenated, with each one's t and length,
    // the three lists in the order of the rows scanned. That is the primary key's (market, t) order
    // (an ORDER BY in the aggregates tripled the time of the read: SQLite sorts them); read() checks
    // that the times rise and else reads the columns, so another plan cannot change what is served.
    this.joined = db
      .prepare(
        `SELECT count(*), sum(typeof(up) <> 'blob'), group_concat(t, ','), group_concat(length(up), ','), CAST(group_concat(up, '') AS BLOB)
         FROM orderbooks WHERE market = ? AND t >= ? AND t < ?`,
      )
      .raw(true);
    // Three plucked columns: no array per row, and no Buffer for a packed row's empty down.
    const column = (c: string) => db.prepare(`SELECT ${c} FROM orderbooks WHERE market = ? AND t >= ? AND t < ? ORDER BY t`).pluck();
    this.columns = { t: column('t'), up: column('up'), down: column("CASE WHEN typeof(up) = 'text' THEN down END") };
  }

  /** The range's books; undefined when a writer changed them between two reads (text rows only). */
  read(market: number, from: number, to: number): PageBookColumns | undefined {
    const [n, other, times, lengths, blob] = this.joined.get(market, from, to) as [number, number | null, string | null, string | null, Uint8Array | null];
    if (n === 0) return { t: [], up: [], down: [] };
    if (other !== 0 || times === null || lengths === null || blob === null || times.includes('-')) return this.db.transaction(() => this.byColumns(market, from, to))();
    const t = numbers(times, n);
    const sizes = numbers(lengths, n);
    if (t === undefined || sizes === undefined) return undefined;
    for (let i = 1; i < n; i++) if (t[i]! <= t[i - 1]!) return this.db.transaction(() => this.byColumns(market, from, to))();
    const up: StoredBook[] = new Array<StoredBook>(n);
    let at = 0;
    for (let i = 0; i < n; i++) {
      up[i] = blob.subarray(at, at + sizes[i]!);
      at += sizes[i]!;
    }
    return at === blob.length ? { t, up, down: [] } : undefined;
  }

  private byColumns(market: number, from: number, to: number): PageBookColumns | undefined {
    const t = this.columns.t.all(market, from, to) as number[];
    const up = this.columns.up.all(market, from, to) as StoredBook[];
    const down = t.length === 0 || up.every((b) => typeof b !== 'string') ? [] : (this.columns.down.all(market, from, to) as (string | null)[]);
    return up.length === t.length && (down.length === 0 || down.length === t.length) ? { t, up, down } : undefined;
  }
}

// `n` non-negative integers written as SQLite prints them, comma-separated (undefined if not n).
function numbers(text: string, n: number): number[] | undefined {
  const out = new Array<number>(n);
  let k = 0;
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      if (k === n - 1) return undefined;
      out[k++] = v;
      v = 0;
    } else {
      v = v * 10 + (c - 48);
    }
  }
  out[k] = v;
  return k === n - 1 ? out : undefined;
}
