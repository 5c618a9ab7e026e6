// Synthetic 8-level depth around a probability, written directly as the JSON text the store serves.
import type { Random } from '../../random/prng.js';

/** Levels per side of a seeded orderbook (the contract allows up to 8). */
export const ORDERBOOK_LEVELS = 8;
const TICK = 0.01;

/** Use to make one outcome's book: bids below `mid`, asks from `mid` up, 1-cent ticks, best first. */
export function orderbookSideJson(mid: number, random: Random): string {
  const midTicks = Math.round(mid / TICK);
  let bids = '';
  let asks = '';
  for (let i = 0; i < ORDERBOOK_LEVELS; i++) {
    const bid = midTicks - 1 - i;
    if (bid >= 1) bids += (bids ? ',{"price":' : '{"price":') + bid / 100 + ',"size":' + size(random, i) + '}';
    const ask = midTicks + i;
    if (ask <= 99) asks += (asks ? ',{"price":' : '{"price":') + ask / 100 + ',"size":' + size(random, i) + '}';
  }
  return `{"bids":[${bids}],"asks":[${asks}]}`;
}

// Deeper levels hold more size, as real books tend to; two decimals like the hosted service.
function size(random: Random, level: number): number {
  return Math.round((20 + random() * 400) * (1 + level) * 100) / 100;
}
