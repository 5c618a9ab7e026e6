// Orderbooks as flat columns (up_bid_px_0 … down_ask_sz_7): one number per cell, which analysts
// load straight into a data frame, instead of a JSON text cell per side.
import type { Snapshot } from '../../../domain/market.js';
import type { Column } from './schema.js';

/** Levels kept per side and book (the contract's depth). */
const ORDERBOOK_DEPTH = 8;

/** One orderbook level, whichever shape the record carries. */
export interface Level {
  price: number;
  size: number;
}

/**
 * Use to read any orderbook level: a `[price, size]` pair or a `{price, size}` object (both shapes
 * occur), undefined when the side, book or level is missing.
 */
export function levelAt(side: unknown, book: 'bids' | 'asks', index: number): Level | undefined {
  if (side === null || typeof side !== 'object') return undefined;
  const levels = (side as Record<string, unknown>)[book];
  if (!Array.isArray(levels)) return undefined;
  const level: unknown = levels[index];
  if (Array.isArray(level)) return { price: Number(level[0]), size: Number(level[1]) };
  if (level !== null && typeof level === 'object') {
    const l = level as Record<string, unknown>;
    return { price: Number(l['price']), size: Number(l['size']) };
  }
  return undefined;
}

/** Use for the flat layout: 64 DOUBLE columns, empty where a level is absent. */
export function orderbookColumns(): Column<Snapshot>[] {
  const columns: Column<Snapshot>[] = [];
  for (const [prefix, pick] of [
    ['up', (s: Snapshot) => s.orderbook_up],
    ['down', (s: Snapshot) => s.orderbook_down],
  ] as const) {
    for (const [short, book] of [['bid', 'bids'], ['ask', 'asks']] as const) {
      for (let i = 0; i < ORDERBOOK_DEPTH; i++) {
        columns.push(
          { name: `${prefix}_${short}_px_${i}`, value: (s) => levelAt(pick(s), book, i)?.price ?? null, table: false, parquet: 'double', nullable: true },
          { name: `${prefix}_${short}_sz_${i}`, value: (s) => levelAt(pick(s), book, i)?.size ?? null, table: false, parquet: 'double', nullable: true },
        );
      }
    }
  }
  return columns;
}
