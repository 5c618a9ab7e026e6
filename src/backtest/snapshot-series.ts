// The general data path: contract snapshot records (from the API client or a local store's
// records) as a MarketSeries, and a MarketSource that reads markets through any MsnapApi one at
// a time, orderbooks included. The fast path over the store's dense blocks yields the same numbers.
import type { MsnapApi } from '../client/types.js';
import type { Market, OrderbookLevel, OrderbookSide, Snapshot } from '../domain/market.js';
import type { BookLevels, MarketSeries, MarketSource, OutcomeSide, SideBook } from '../domain/market-series.js';

function levels(side: readonly OrderbookLevel[]): BookLevels {
  const prices = new Float64Array(side.length);
  const sizes = new Float64Array(side.length);
  for (let k = 0; k < side.length; k++) {
    prices[k] = side[k]!.price;
    sizes[k] = side[k]!.size;
  }
  return { length: side.length, prices, sizes };
}

function sideBook(ob: OrderbookSide | undefined | null): SideBook | undefined {
  return ob ? { bids: levels(ob.bids ?? []), asks: levels(ob.asks ?? []) } : undefined;
}

/** Use to hand contract records (time order, orderbooks optional) to the engine. */
export function seriesFromSnapshots(market: Market, snapshots: readonly Snapshot[]): MarketSeries {
  const n = snapshots.length;
  const time = new Float64Array(n);
  const price = new Float64Array(n);
  const priceUp = new Float64Array(n);
  const priceDown = new Float64Array(n);
  // Books stay in record form until an order or a bid/ask condition reads them.
  const up: (OrderbookSide | undefined)[] = new Array(n);
  const down: (OrderbookSide | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const s = snapshots[i]!;
    time[i] = s.time;
    price[i] = s.price;
    priceUp[i] = s.price_up;
    priceDown[i] = s.price_down;
    up[i] = s.orderbook_up ?? undefined;
    down[i] = s.orderbook_down ?? undefined;
  }
  return {
    market,
    length: n,
    time,
    price,
    priceUp,
    priceDown,
    book: (i: number, side: OutcomeSide) => sideBook(side === 'up' ? up[i] : down[i]),
  };
}

/** The part of a market's snapshots to read: [from, to) in epoch ms, as `msnap snapshots` takes it. */
export interface SnapshotRange {
  from?: number;
  to?: number;
}

/**
 * Use for any MsnapApi (the paced HTTP client, or a local store opened with --db): the given
 * markets (oldest first) one at a time, each read whole with its orderbooks, then let go.
 */
export async function* apiMarketSource(client: MsnapApi, markets: readonly Market[], range: SnapshotRange = {}): MarketSource {
  for (const market of markets) {
    const rows: Snapshot[] = [];
    for await (const page of client.snapshotPages(market.market_id, {
      ...(range.from !== undefined ? { from: range.from } : {}),
      ...(range.to !== undefined ? { to: range.to } : {}),
      includeOrderbook: true,
    })) {
      for (const s of page.rows()) rows.push(s);
    }
    yield seriesFromSnapshots(market, rows);
  }
}
