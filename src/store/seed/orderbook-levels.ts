// Synthetic 8-level depth around each outcome's probability, as scaled numbers (a packed pair's
// lists): 1-cent ticks, bids below the mid and asks from it up, best first. Like a real book
// between two 125 ms snapshots, most levels keep their size: the size resting at a price holds
// for a spell of 1 to 5 seconds (its own length and phase), then a new one is drawn, and it stays
// at its price when the mid moves. Every value is a pure function of (seed, stream, time), so the
// seed and the live world write the same books.
import type { BookPair, LevelList } from '../core/book-codec.js';
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { hashKeys, uniformAt } from '../../random/prng.js';

/** Levels per side of a seeded orderbook (the contract allows up to 8). */
const ORDERBOOK_LEVELS = 8;
const MIN_SPELL = 8;
const SPELL_SPREAD = 33;

/** Use to fill both outcomes' books of the snapshot at `time` (2 decimals for prices and sizes). */
export function orderbookPairLevels(seed: number, stream: number, time: number, up: number, down: number, pair: BookPair): BookPair {
  pair.dp = 2;
  pair.ds = 2;
  const step = Math.floor(time / SNAPSHOT_INTERVAL_MS);
  sideLevels(up, (list, tick) => size(seed, stream, list, tick, step), pair.lists[0], pair.lists[1]);
  sideLevels(down, (list, tick) => size(seed, stream, 2 + list, tick, step), pair.lists[2], pair.lists[3]);
  return pair;
}

function sideLevels(mid: number, sizeOf: (list: number, tick: number) => number, bids: LevelList, asks: LevelList): void {
  const midTicks = Math.round(mid / 0.01);
  bids.n = 0;
  asks.n = 0;
  for (let i = 0; i < ORDERBOOK_LEVELS; i++) {
    const bid = midTicks - 1 - i;
    if (bid >= 1) {
      bids.prices[bids.n] = bid;
      bids.sizes[bids.n++] = sizeOf(0, bid);
    }
    const ask = midTicks + i;
    if (ask <= 99) {
      asks.prices[asks.n] = ask;
      asks.sizes[asks.n++] = sizeOf(1, ask);
    }
  }
}

// Hundredths, 20 to 1,500 shares at the price `tick` (cents). `list`: 0-3, up bids to down asks.
function size(seed: number, stream: number, list: number, tick: number, step: number): number {
  const key = list * 100 + tick;
  const shape = hashKeys(seed, stream, key, -1);
  const spell = MIN_SPELL + (shape % SPELL_SPREAD);
  const phase = (shape >>> 8) % spell;
  const u = uniformAt(seed, stream, key, Math.floor((step + phase) / spell));
  return Math.round((20 + u * 1480) * 100);
}
