// The library's one read API, over either source the CLI reads: the service (createClient) or a
// local store (openStore). The CLI's own commands run on the same core (`reader.core`).
import type { Coin, Market, MarketType, Snapshot } from '../domain/market.js';
import { UsageError } from '../errors.js';
import { chooseMarkets } from '../client/markets/market-selection.js';
import type { PaperApi } from '../client/paper/paper-types.js';
import type { AtResult, Health, Limits, MarketsListingQuery, MsnapApi, SnapshotsStreamQuery } from '../client/types.js';
import { checkRange, coinArg, marketTypeArg } from '../domain/arguments.js';
import { parseTime } from '../domain/time.js';

/** A point in time: epoch ms, a Date, or any TIME the CLI takes (`2025-11-22T10:00:00Z`, `2h`, `now`). */
export type Time = number | Date | string;

/** Which snapshots of a market: [from, to), with or without orderbook depth. */
export interface SnapshotRange {
  from?: Time;
  to?: Time;
  /** Include orderbook_up/orderbook_down (as `--orderbook`). */
  orderbook?: boolean;
}

/** `snapshots COIN TYPE --last/--from/--to`: the latest `last` markets with snapshots (default 1, all in a range). */
export interface MarketSelection extends SnapshotRange {
  coin: Coin | Lowercase<Coin>;
  type: MarketType;
  last?: number;
}

/** What a reader is made with besides its source. */
export interface ReaderOptions {
  /** Epoch ms clock (relative TIMEs, market status). */
  now: () => number;
  /** The notes the CLI prints as `msnap: note: …` (a selection cut short by the plan's data window). */
  onNote?: (message: string) => void;
}

/** Use to read markets and snapshots from the service or a local store; close() when done. */
export class MsnapReader {
  /** @param core the client core the CLI's commands use (exports read whole pages, or text, from it). */
  constructor(
    readonly core: MsnapApi,
    private readonly opts: ReaderOptions,
  ) {}

  /**
   * Paper trading on `msnap serve` (docs/bots.md): `order`, `account`, `orders`, `reset`. A local
   * store has none (undefined); the hosted service answers NotFoundError.
   */
  get paper(): PaperApi | undefined {
    return this.core.capabilities().paper;
  }

  /** Status, time and version of the service (a local store answers `ok` at once). */
  health(): Promise<Health> {
    return this.core.health();
  }

  /** The key's plan, rate limits and data window (`plan: 'local'` and no limits for a store). */
  limits(): Promise<Limits> {
    return this.core.limits();
  }

  /** Markets newest first: one page (`limit`, default 100), up to `max`, or every one (`all: true`). */
  markets(q: MarketsListingQuery = {}): AsyncIterable<Market> {
    return this.core.markets(q);
  }

  /** One market by id (NotFoundError when unknown). */
  market(id: string): Promise<Market> {
    return this.core.market(id);
  }

  /** The markets `snapshots COIN TYPE` would export, oldest first (NotFoundError when none, WindowError before the window). */
  async select(selection: MarketSelection): Promise<Market[]> {
    const coin = coinArg(selection.coin);
    const marketType = marketTypeArg(selection.type);
    const range = this.epochRange(selection);
    if (selection.last !== undefined && !(Number.isSafeInteger(selection.last) && selection.last >= 1)) {
      throw new UsageError(`last must be a whole number of at least 1, got ${selection.last}`);
    }
    return chooseMarkets(this.core, { coin, marketType }, { ...range, ...(selection.last !== undefined ? { last: selection.last } : {}) }, (m) =>
      this.opts.onNote?.(m),
    );
  }

  /**
   * Every snapshot of a market (by id) or of a selection, oldest first, in constant memory, with the
   * CLI's pacing, retries and errors. The next pages are fetched while you use this one.
   */
  async *snapshots(target: string | MarketSelection, range: SnapshotRange = {}): AsyncGenerator<Snapshot> {
    for await (const page of this.snapshotPages(target, range)) {
      for (const s of page) yield s;
    }
  }

  /** As snapshots(), a page (up to 10,000 rows) at a time: one await per page instead of per row. */
  async *snapshotPages(target: string | MarketSelection, range: SnapshotRange = {}): AsyncGenerator<readonly Snapshot[]> {
    const r = typeof target === 'string' ? range : target;
    const ids = typeof target === 'string' ? [target] : (await this.select(target)).map((m) => m.market_id);
    const q: SnapshotsStreamQuery = { ...this.epochRange(r), includeOrderbook: r.orderbook === true };
    for (const id of ids) {
      for await (const page of this.core.snapshotPages(id, q)) yield page.rows();
    }
  }

  /** The snapshot nearest `ts` (NotFoundError when none lies within 2 s). */
  at(marketId: string, ts: Time): Promise<AtResult> {
    return this.core.at(marketId, this.time(ts, 'ts'));
  }

  /** Closes the connections or the store. */
  close(): Promise<void> {
    return this.core.close();
  }

  /** from/to as epoch ms, checked (a UsageError for a bad TIME or an empty range). */
  epochRange(r: Pick<SnapshotRange, 'from' | 'to'>): { from?: number; to?: number } {
    const from = r.from === undefined ? undefined : this.time(r.from, 'from');
    const to = r.to === undefined ? undefined : this.time(r.to, 'to');
    checkRange(from, to);
    return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
  }

  private time(t: Time, label: string): number {
    const ms = typeof t === 'string' ? parseTime(t, this.opts.now(), label) : typeof t === 'number' ? t : t.getTime();
    if (!Number.isFinite(ms)) throw new UsageError(`${label}: not a time (${String(t)})`);
    return ms;
  }
}
