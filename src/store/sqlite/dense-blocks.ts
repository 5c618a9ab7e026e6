// A derived cache for dense markets: their snapshots packed per fixed block of BLOCK_SNAPSHOTS
// slots into one BLOB (prices, then probabilities packed by SIDE_BITS, as little-endian uint32;
// times follow from the grid). A page then reads one or two rows instead of a thousand.
// The snapshots table stays the source of truth: blocks are rebuilt from it (or from the rows a
// writer has just inserted) whenever a market's rows change, in the same transaction, and a page
// whose blocks are missing or short takes the row path.
import { endianness } from 'node:os';
import type Database from 'better-sqlite3';
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { SIDE_BITS } from '../core/dense-page-writer.js';
import { PRICE_SCALE } from '../core/price-scale.js';

/** Snapshot slots per block: 8 KiB of values, so a 1000-row page reads one or two blocks. */
export const BLOCK_SNAPSHOTS = 1024;
const BLOCK_SHIFT = 10;
const BLOCK_MS = BLOCK_SNAPSHOTS * SNAPSHOT_INTERVAL_MS;
/** Slots an appender adds to a block before its stored prefix is rewritten (32 s of live data). */
const TAIL_REWRITE = 256;
/** Markets whose last block stays in memory for the next append (serve --live writes 15 at a time). */
const MAX_TAILS = 64;
/** Blobs hold the machine's uint32 layout; on a big-endian machine blocks are neither written nor read. */
const USABLE = endianness() === 'LE';

/** What a bulk writer saw of one market's rows in this transaction, for DenseBlocks.sync. */
export interface BlockRun {
  /** Rows so far, while they are t = 0, 125, 250, ... in order, all inserted and all packable. */
  k: number;
  ok: boolean;
  /** Smallest t added (whether or not it was inserted): blocks below it are untouched. */
  minT: number;
  /** Full blocks this run has stored already (to be undone when the run fails). */
  stored: number;
  /** For a run resumed after stored rows: the block whose stored blob it started from, and that blob's slots. */
  resumedBlock?: number;
  resumedSize?: number;
  prices: Uint32Array | undefined;
  sides: Uint32Array | undefined;
}

/**
 * Use inside a bulk writer: follows each market's rows as they are added and stores every block
 * as soon as a run from t = 0 fills it, so a fresh market needs no re-read at commit.
 */
export class BlockRuns {
  private readonly runs = new Map<number, BlockRun>();
  private market = -1;
  private run: BlockRun | undefined;

  /** `scan` reads rows back where a resumed run needs values its stored blob does not hold. */
  constructor(
    private readonly blocks: DenseBlocks,
    private readonly scan?: BlockScan,
  ) {}

  /** Call for every row added, in order (values already scaled). */
  add(market: number, t: number, price: number, priceUp: number, priceDown: number): void {
    let r = this.run;
    if (r === undefined || this.market !== market) r = this.switchTo(market);
    if (t < r.minT) r.minT = t;
    if (!r.ok) return;
    if (
      t !== r.k * SNAPSHOT_INTERVAL_MS ||
      price >>> 0 !== price ||
      priceUp >>> 0 !== priceUp ||
      priceUp > PRICE_SCALE ||
      priceDown >>> 0 !== priceDown ||
      priceDown > PRICE_SCALE
    ) {
      this.fail(r);
      return;
    }
    const i = r.k & (BLOCK_SNAPSHOTS - 1);
    r.prices![i] = price;
    r.sides![i] = priceUp * 2 ** SIDE_BITS + priceDown;
    r.k++;
    if ((r.k & (BLOCK_SNAPSHOTS - 1)) === 0) {
      this.blocks.put(market, (r.k >> BLOCK_SHIFT) - 1, r.prices!, r.sides!, BLOCK_SNAPSHOTS);
      r.stored++;
    }
  }

  /**
   * Call before appending to a dense market that holds k rows: its run starts at slot k with the
   * stored values of its last, partial block, so its blocks stay complete without re-reading rows.
   * When those values are not stored the run fails (sync then rebuilds from the rows).
   */
  resume(market: number, k: number): void {
    const r = this.switchTo(market);
    if (!r.ok || r.k !== 0 || Number.isFinite(r.minT)) return;
    const block = k >> BLOCK_SHIFT;
    const need = k & (BLOCK_SNAPSHOTS - 1);
    r.resumedBlock = block;
    const kept = this.blocks.tail(market, k);
    if (kept) {
      // This process wrote the market's last rows: their values are still at hand.
      r.prices!.set(kept.prices.subarray(0, need));
      r.sides!.set(kept.sides.subarray(0, need));
      r.k = k;
      r.resumedSize = kept.storedSize;
      return;
    }
    // What the stored blob holds of the last block, then the rest (a few seconds of rows) from the table.
    const stored = need > 0 ? this.blocks.prefix(market, block) : undefined;
    const have = Math.min(stored?.prices.length ?? 0, need);
    if (have > 0) {
      r.prices!.set(stored!.prices.subarray(0, have));
      r.sides!.set(stored!.sides.subarray(0, have));
    }
    if (have < need) {
      const base = block * BLOCK_MS;
      const rest = this.scan?.(market, base + have * SNAPSHOT_INTERVAL_MS, base + need * SNAPSHOT_INTERVAL_MS);
      if (!rest) {
        this.fail(r);
        return;
      }
      r.prices!.set(rest.prices, have);
      r.sides!.set(rest.sides, have);
    }
    r.k = k;
    r.resumedSize = stored?.prices.length ?? 0;
  }

  /** Call when some of the market's rows were ignored (already stored): its run no longer describes the table. */
  failMarket(market: number): void {
    const r = this.runs.get(market);
    if (r) this.fail(r);
  }

  /** Every market that got rows, with what was seen of them. */
  entries(): IterableIterator<[number, BlockRun]> {
    return this.runs.entries();
  }

  private switchTo(market: number): BlockRun {
    let r = this.runs.get(market);
    if (!r) {
      r = { k: 0, ok: USABLE, minT: Infinity, stored: 0, prices: undefined, sides: undefined };
      if (r.ok) {
        r.prices = new Uint32Array(BLOCK_SNAPSHOTS);
        r.sides = new Uint32Array(BLOCK_SNAPSHOTS);
      }
      this.runs.set(market, r);
    }
    this.market = market;
    this.run = r;
    return r;
  }

  private fail(r: BlockRun): void {
    r.ok = false;
    r.prices = undefined;
    r.sides = undefined;
  }
}

/** Use for the snapshot_blocks table: reading a dense page's values, and keeping blocks equal to rows. */
export class DenseBlocks {
  private readonly stmts: ReturnType<typeof prepare> | undefined;
  private readonly packed = new Uint32Array(2 * BLOCK_SNAPSHOTS);
  private prices = new Uint32Array(BLOCK_SNAPSHOTS * 16);
  /** The last block's values of markets this connection appended to lately (k = rows then; storedSize = slots in the blob). */
  private readonly tails = new Map<number, { k: number; storedSize: number; prices: Uint32Array; sides: Uint32Array }>();
  private sides = new Uint32Array(BLOCK_SNAPSHOTS * 16);

  constructor(db: Database.Database) {
    // A read-only connection to a database from before the blocks migration has no table: no blocks then.
    const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'snapshot_blocks'").get() !== undefined;
    this.stmts = has && USABLE ? prepare(db) : undefined;
  }

  /**
   * The values of slots [first, last) of a dense market, or undefined when its blocks do not hold
   * them all (not built, built before rows were added elsewhere, or a value they cannot pack).
   * The arrays are reused by the next call.
   */
  read(market: number, first: number, last: number): { prices: Uint32Array; sides: Uint32Array } | undefined {
    const s = this.stmts;
    if (!s || last <= first) return undefined;
    const b0 = first >> BLOCK_SHIFT;
    const b1 = (last - 1) >> BLOCK_SHIFT;
    const blobs = s.select.all(market, b0, b1) as Buffer[];
    if (blobs.length !== b1 - b0 + 1) return undefined;
    const n = last - first;
    if (this.prices.length < n) {
      this.prices = new Uint32Array(n);
      this.sides = new Uint32Array(n);
    }
    let at = 0;
    for (let j = 0; j < blobs.length; j++) {
      const blob = blobs[j]!;
      const size = blob.byteLength >> 3;
      const base = (b0 + j) << BLOCK_SHIFT;
      const from = Math.max(first, base) - base;
      const to = Math.min(last, base + BLOCK_SNAPSHOTS) - base;
      if (size < to || blob.byteLength !== size * 8) return undefined;
      const words =
        (blob.byteOffset & 3) === 0
          ? new Uint32Array(blob.buffer, blob.byteOffset, size * 2)
          : new Uint32Array(Uint8Array.from(blob).buffer);
      this.prices.set(words.subarray(from, to), at);
      this.sides.set(words.subarray(size + from, size + to), at);
      at += to - from;
    }
    return { prices: this.prices.subarray(0, n), sides: this.sides.subarray(0, n) };
  }

  /** The last block's values of a market as this connection last wrote it with k rows, or undefined. */
  tail(market: number, k: number): { storedSize: number; prices: Uint32Array; sides: Uint32Array } | undefined {
    const t = this.tails.get(market);
    return t?.k === k ? t : undefined;
  }

  private keepTail(market: number, n: number, run: BlockRun, storedSize: number): void {
    const size = n % BLOCK_SNAPSHOTS;
    this.tails.delete(market);
    if (size === 0) return;
    if (this.tails.size >= MAX_TAILS) this.tails.delete(this.tails.keys().next().value!);
    this.tails.set(market, { k: n, storedSize, prices: run.prices!.slice(0, size), sides: run.sides!.slice(0, size) });
  }

  /** The values a block's stored blob holds (reused by the next call), or undefined when it has none. */
  prefix(market: number, block: number): { prices: Uint32Array; sides: Uint32Array } | undefined {
    const s = this.stmts;
    if (!s) return undefined;
    const blob = s.select.get(market, block, block) as Buffer | undefined;
    if (!blob || blob.byteLength % 8 !== 0) return undefined;
    const size = blob.byteLength >> 3;
    return this.read(market, block << BLOCK_SHIFT, (block << BLOCK_SHIFT) + size);
  }

  /** Stores one block of n slots (replacing one stored before). */
  put(market: number, block: number, prices: Uint32Array, sides: Uint32Array, n: number): void {
    const s = this.stmts;
    if (!s) return;
    const p = this.packed;
    p.set(prices.subarray(0, n), 0);
    p.set(sides.subarray(0, n), n);
    s.put.run(market, block, Buffer.from(p.buffer, p.byteOffset, n * 8));
  }

  /**
   * Makes a market's blocks match its rows, inside the transaction that changed them. `run` is what
   * a bulk writer saw (undefined: unknown, rebuild everything). `n` and `dense` are the market's
   * stored summary after the change.
   */
  sync(market: number, dense: boolean, n: number, run: BlockRun | undefined, scan: BlockScan): void {
    const s = this.stmts;
    if (!s) return;
    if (!dense || n === 0) {
      s.deleteFrom.run(market, 0);
      return;
    }
    const blocks = Math.ceil(n / BLOCK_SNAPSHOTS);
    // A run from t = 0 (or resumed after the market's rows) with every row inserted, and as many
    // rows as the market now holds: what the writer saw is the table.
    if (run?.ok && run.k === n) {
      const tail = n % BLOCK_SNAPSHOTS;
      // A short last block is a valid prefix (reads past it use the rows): an appender rewrites it
      // only every TAIL_REWRITE slots, not on every small append.
      const fresh = run.resumedBlock === blocks - 1 && tail - run.resumedSize! < TAIL_REWRITE;
      if (tail !== 0 && !fresh) this.put(market, blocks - 1, run.prices!, run.sides!, tail);
      this.keepTail(market, n, run, fresh ? run.resumedSize! : tail);
      s.deleteFrom.run(market, blocks);
      return;
    }
    // Rows below the run's smallest t did not change; their full blocks, if all there, still hold.
    let from = 0;
    if (run && run.stored === 0 && Number.isFinite(run.minT)) {
      const keep = Math.min(Math.floor(run.minT / BLOCK_MS), blocks);
      if (keep > 0 && (s.countFull.get(market, keep, BLOCK_SNAPSHOTS * 8) as number) === keep) from = keep;
    }
    s.deleteFrom.run(market, from);
    for (let b = from; b < blocks; b++) {
      const lo = b * BLOCK_MS;
      const hi = Math.min(n, (b + 1) * BLOCK_SNAPSHOTS) * SNAPSHOT_INTERVAL_MS;
      const values = scan(market, lo, hi);
      if (values === undefined) continue;
      this.put(market, b, values.prices, values.sides, values.prices.length);
    }
  }
}

/**
 * Reads rows [lo, hi) of a dense market as block values, or undefined when they are not exactly
 * every slot of the range or hold a value a block cannot pack.
 */
export type BlockScan = (market: number, lo: number, hi: number) => { prices: Uint32Array; sides: Uint32Array } | undefined;

function prepare(db: Database.Database) {
  return {
    select: db.prepare('SELECT data FROM snapshot_blocks WHERE market = ? AND block BETWEEN ? AND ? ORDER BY block').pluck(),
    put: db.prepare('INSERT OR REPLACE INTO snapshot_blocks (market, block, data) VALUES (?, ?, ?)'),
    deleteFrom: db.prepare('DELETE FROM snapshot_blocks WHERE market = ? AND block >= ?'),
    countFull: db
      .prepare('SELECT count(*) FROM snapshot_blocks WHERE market = ? AND block < ? AND length(data) = ?')
      .pluck(),
  };
}
