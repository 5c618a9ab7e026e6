// A module's orderbook_up / orderbook_down read as the `{ bids, asks }` of `{ price, size }` they
// stand for (docs/backtest.md "JavaScript modules"): each snapshot's own levels (books kept past
// their snapshot too), JSON, console.log, writes, copies.
import { describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import type { OrderbookSide } from '../../domain/market.js';
import { runBacktest } from '../engine/engine.js';
import type { StrategySnapshot } from './strategy.js';
import { book, seriesOf, snap, sourceOf, testMarket } from '../test-support/markets.js';

type Book = NonNullable<StrategySnapshot['orderbook_up']>;

/** The book a plain object would have held: levels as the snapshot records them. */
function plain(b: OrderbookSide | undefined): unknown {
  return b && { bids: b.bids.map((l) => ({ price: l.price, size: l.size })), asks: b.asks.map((l) => ({ price: l.price, size: l.size })) };
}

function market() {
  const m = testMarket(0, 'Up');
  const books = [0.4, 0.5, 0.6].map((p, k) => book([[p - 0.01, 10 + k], [p - 0.02, 20 + k]], [[p + 0.01, 30 + k], [p + 0.03, 40 + k], [p + 0.04, 1]]));
  // Snapshot 2 has no Up book; the Down book is on snapshots 1 and 2 only.
  const snaps = [
    snap(m, 0, 0.4, { up: books[0] }),
    snap(m, 1000, 0.5, { up: books[1], down: books[2] }),
    snap(m, 2000, 0.6, { down: books[0] }),
    snap(m, 3000, 0.6, { up: books[2] }),
  ];
  return { m, snaps, series: seriesOf(m, snaps) };
}

describe('a module strategy\'s orderbooks', () => {
  it('read as plain objects, each snapshot\'s own, even when kept and read after later snapshots', async () => {
    const { snaps, series } = market();
    const kept: { up: Book | undefined; down: Book | undefined }[] = [];
    const seen: unknown[] = [];
    await runBacktest(
      {
        onSnapshot(s) {
          // Kept without reading a list: the later snapshots' books must not show through.
          kept.push({ up: s.orderbook_up, down: s.orderbook_down });
          const up = s.orderbook_up;
          if (!up) return;
          const { bids, asks } = up;
          seen.push('bids' in up, { bids, asks }, s.orderbook_up === up);
        },
      },
      sourceOf(series),
    );
    expect(kept.map((k) => JSON.parse(JSON.stringify(k)))).toEqual(snaps.map((x) => JSON.parse(JSON.stringify({ up: plain(x.orderbook_up), down: plain(x.orderbook_down) }))));
    expect(kept.map((k) => k.down?.asks ?? null)).toEqual(snaps.map((x) => (plain(x.orderbook_down) as { asks: unknown } | undefined)?.asks ?? null));
    const asSeen = (k: number) => [true, plain(snaps[k]!.orderbook_up), false];
    expect(seen).toEqual([...asSeen(0), ...asSeen(1), ...asSeen(3)]);
  });

  it('take a list written over, and print their levels', async () => {
    const { snaps, series } = market();
    const out: unknown[] = [];
    await runBacktest(
      {
        onSnapshot(s) {
          if (s.elapsed_ms !== 0) return;
          const a = s.orderbook_up!;
          a.asks = [];
          out.push(JSON.stringify(a.asks), a.bids[0], s.orderbook_up!.asks.length);
          out.push(inspect(s.orderbook_up, { depth: 5, breakLength: Infinity }));
        },
      },
      sourceOf(series),
    );
    const first = plain(snaps[0]!.orderbook_up) as { bids: unknown[]; asks: unknown[] };
    expect(out).toEqual(['[]', first.bids[0], first.asks.length, inspect(first, { depth: 5, breakLength: Infinity })]);
  });

  it('copy as plain objects: spread, Object.keys and structuredClone see both lists', async () => {
    const { snaps, series } = market();
    const out: unknown[] = [];
    await runBacktest(
      {
        onSnapshot(s) {
          if (s.elapsed_ms !== 0) return;
          const up = s.orderbook_up!;
          out.push(Object.keys(up), { ...up }, structuredClone(up));
        },
      },
      sourceOf(series),
    );
    const first = plain(snaps[0]!.orderbook_up);
    expect(out).toEqual([['bids', 'asks'], first, first]);
  });
});
