// `serve --live`: keeps a seeded synthetic world running. Each advance(now) writes, in one
// transaction, what the world holds between the clock it was last written at and `now`: markets
// that opened, snapshots (with orderbooks) of the markets it owns, price_end and winner of those
// that ended, and the orderbook window moved on. Rows come from synthetic-market.ts, the same
// functions the seed uses, so they equal what a seed made at `now` would hold.
import { COINS, MARKET_DURATION_MS, MARKET_TYPES, SNAPSHOT_INTERVAL_MS, type Coin, type MarketType } from '../domain/market.js';
import type { BulkWrites, WorldState } from '../store/bulk-store.js';
import { SyntheticCoin } from '../store/seed/synthetic-market.js';

/** How far back a catch-up writes snapshots: markets that ended earlier get price_end and winner only. */
export const CATCH_UP_MS = 2 * 60 * 60_000;

/** What one advance wrote. */
export interface AdvanceSummary {
  opened: number;
  resolved: number;
  snapshots: number;
  orderbooks: number;
  /** The clock the world is now written up to. */
  through: number;
}

/** Options of LiveWorld; catchUpMs bounds how many snapshots one advance writes (default CATCH_UP_MS). */
export interface LiveWorldOptions {
  catchUpMs?: number;
}

/** Use to run the synthetic world of a database forward; the caller supplies the clock. */
export class LiveWorld {
  private readonly catchUpMs: number;
  private coins: { seed: number; bySymbol: Map<Coin, SyntheticCoin> } | undefined;

  constructor(
    private readonly bulk: BulkWrites,
    opts: LiveWorldOptions = {},
  ) {
    this.catchUpMs = opts.catchUpMs ?? CATCH_UP_MS;
  }

  /** The world this database holds, or undefined when no seed made it (imported data only, or an older msnap). */
  state(): WorldState | undefined {
    return this.bulk.world.state();
  }

  /**
   * Writes the world up to `now` in one transaction; undefined when the database holds no world.
   * `wait: false` (the ticker) fails at once with SQLITE_BUSY when another process holds the write
   * lock, so the server's event loop never waits for it; the next advance covers the gap.
   */
  advance(now: number, opts: { wait?: boolean } = {}): AdvanceSummary | undefined {
    const run = () => this.advanceInTransaction(now);
    return opts.wait === false ? this.bulk.transactionNoWait(run) : this.bulk.transaction(run);
  }

  private advanceInTransaction(now: number): AdvanceSummary | undefined {
    const state = this.bulk.world.state();
    if (!state) return undefined;
    const summary: AdvanceSummary = { opened: 0, resolved: 0, snapshots: 0, orderbooks: 0, through: state.through };
    const prev = state.through;
    // A clock that went back (or stood still) has nothing to add.
    if (!(now > prev)) return summary;
    const coins = this.coinsOf(state.seed);
    summary.opened = this.openMarkets(coins, prev, now);
    summary.resolved = this.resolveMarkets(coins, prev, now);
    const writer = this.bulk.snapshotWriter();
    const lastStep = now - (now % SNAPSHOT_INTERVAL_MS);
    const firstStep = Math.max(prev - (prev % SNAPSHOT_INTERVAL_MS) + SNAPSHOT_INTERVAL_MS, lastStep - this.catchUpMs);
    const depthFrom = now - state.orderbookMs;
    for (const m of this.bulk.world.ownedOverlapping(firstStep, lastStep)) {
      const synthetic = coins.get(m.coin)!;
      // Continue after what is stored (another msnap serve on the same file may have written it).
      const next = m.snapshotCount === 0 ? 0 : m.dense ? m.snapshotCount * SNAPSHOT_INTERVAL_MS : this.bulk.world.lastSnapshotOffset(m.rowid)! + SNAPSHOT_INTERVAL_MS;
      const from = Math.max(firstStep, m.startTime + next);
      // Appending right after a dense market's rows: its blocks continue from the stored tail.
      if (m.dense && from - m.startTime === next) writer.runs?.resume(m.rowid, m.snapshotCount);
      let n = 0;
      synthetic.snapshots(m.marketType, m.startTime, from, lastStep, depthFrom, (row, book) => {
        writer.add(m.rowid, row.t, row.price, row.priceUp, row.priceDown);
        n++;
        if (book && this.bulk.insertOrderbookPair(m.rowid, row.t, book)) summary.orderbooks++;
      });
      if (n === 0) continue;
      // Dense while the rows stay t = 0, 125, ... with no gap (a catch-up past its bound leaves one).
      const dense = m.snapshotCount === 0 ? from === m.startTime : m.dense && from - m.startTime === next;
      this.bulk.setMarketSummary(m.rowid, m.snapshotCount + n, dense);
      summary.snapshots += n;
    }
    this.pruneOrderbooks(prev - state.orderbookMs, Math.min(prev, depthFrom), depthFrom);
    writer.flush();
    // Blocks follow the rows, and the data version moves: readers' cached counts start over.
    this.bulk.syncBlocks(writer);
    this.bulk.world.setThrough(now);
    summary.through = now;
    return summary;
  }

  /** Creates every market that started in (prev, now], in start order; a market id already stored (imported) is left alone. */
  private openMarkets(coins: Map<Coin, SyntheticCoin>, prev: number, now: number): number {
    const starts: { type: MarketType; start: number }[] = [];
    for (const type of MARKET_TYPES) {
      const d = MARKET_DURATION_MS[type];
      for (let start = Math.floor(prev / d) * d + d; start <= now; start += d) starts.push({ type, start });
    }
    starts.sort((a, b) => a.start - b.start || MARKET_DURATION_MS[a.type] - MARKET_DURATION_MS[b.type]);
    let opened = 0;
    for (const { type, start } of starts) {
      for (const coin of COINS) {
        const write = coins.get(coin)!.marketWrite(type, start, now);
        if (this.bulk.marketRef(write.marketId)) continue;
        const { ref } = this.bulk.upsertMarket(write);
        this.bulk.world.own(ref.rowid);
        opened++;
      }
    }
    return opened;
  }

  /** Owned markets that ended in (prev, now] get price_end and winner from the path. */
  private resolveMarkets(coins: Map<Coin, SyntheticCoin>, prev: number, now: number): number {
    let resolved = 0;
    // Every market ends on a 5-minute boundary: most ticks cross none.
    const step = MARKET_DURATION_MS['5m'];
    if (Math.floor(now / step) === Math.floor(prev / step)) return 0;
    for (const m of this.bulk.world.ownedOverlapping(prev, now)) {
      if (m.endTime > now || m.priceEnd !== null) continue;
      this.bulk.upsertMarket(coins.get(m.coin)!.marketWrite(m.marketType, m.startTime, now));
      resolved++;
    }
    return resolved;
  }

  /** Orderbooks older than `depthFrom` leave the window; only owned markets that held some in [oldFrom, oldTo) are visited. */
  private pruneOrderbooks(oldFrom: number, oldTo: number, depthFrom: number): void {
    if (oldTo <= oldFrom) return;
    for (const m of this.bulk.world.ownedOverlapping(oldFrom, oldTo)) {
      this.bulk.world.pruneOrderbooks(m.rowid, depthFrom - m.startTime);
    }
  }

  private coinsOf(seed: number): Map<Coin, SyntheticCoin> {
    if (this.coins?.seed !== seed) {
      this.coins = { seed, bySymbol: new Map(COINS.map((c) => [c, new SyntheticCoin(seed, c)])) };
    }
    return this.coins.bySymbol;
  }
}
