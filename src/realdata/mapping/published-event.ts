// One published event's fields (an archive row, a market WebSocket message) read into the one
// event shape: both readers call this, so the same published event gives the same MarketEvent
// whichever source carried it (REALDATA.md §2, §3).
import { PRICE_DECIMALS, SIZE_DECIMALS, parseScaled, scaledValue } from './decimal.js';
import type { MarketEvent, ScaledLevel } from './market-event.js';

/** The fields an event is read from, named as the sources publish them (`event_type` as `type`, `asset_id` as `token`). */
export interface PublishedFields {
  type: string;
  /** The exchange's time, epoch ms. */
  ts: number;
  token: string;
  bids?: unknown;
  asks?: unknown;
  price?: unknown;
  size?: unknown;
  side?: string;
}

/** Use per published event: its MarketEvent; undefined for one that changes no level and no price (tick_size_change, best_bid_ask…) or cannot be read. */
export function publishedEvent(f: PublishedFields): MarketEvent | undefined {
  const { type, ts, token } = f;
  if (!Number.isFinite(ts) || token === '') return undefined;
  if (type === 'book') {
    const b = bookLevels(f.bids);
    const a = bookLevels(f.asks);
    if (!b || !a) return undefined;
    return { kind: 'book', ts, token, bids: b, asks: a };
  }
  if (type === 'price_change') {
    const p = scaledValue(f.price, PRICE_DECIMALS);
    const s = scaledValue(f.size, SIZE_DECIMALS);
    const side = (f.side ?? '').toUpperCase();
    if (!Number.isFinite(p) || !Number.isFinite(s) || (side !== 'BUY' && side !== 'SELL')) return undefined;
    return { kind: 'level', ts, token, side: side === 'BUY' ? 'bid' : 'ask', price: p, size: s };
  }
  if (type === 'last_trade_price') {
    const p = scaledValue(f.price, PRICE_DECIMALS);
    return Number.isFinite(p) ? { kind: 'trade', ts, token, price: p } : undefined;
  }
  return undefined;
}

const decoder = new TextDecoder();

/** Use for a `book` event's bids or asks (JSON text `[["0.48","120.5"], …]`, bytes, or `[{price, size}]`): its levels; [] for an empty or null side, undefined when unreadable. */
function bookLevels(v: unknown): ScaledLevel[] | undefined {
  if (v === null || v === undefined || v === '') return [];
  let parsed: unknown = v;
  if (typeof v === 'string' || v instanceof Uint8Array) {
    try {
      parsed = JSON.parse(typeof v === 'string' ? v : decoder.decode(v));
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(parsed)) return undefined;
  const out: ScaledLevel[] = [];
  for (const l of parsed) {
    const [p, s] = Array.isArray(l) ? l : l && typeof l === 'object' ? [(l as { price?: unknown }).price, (l as { size?: unknown }).size] : [];
    const price = typeof p === 'string' ? parseScaled(p, PRICE_DECIMALS) : scaledValue(p, PRICE_DECIMALS);
    const size = typeof s === 'string' ? parseScaled(s, SIZE_DECIMALS) : scaledValue(s, SIZE_DECIMALS);
    if (!Number.isFinite(price) || !Number.isFinite(size)) return undefined;
    out.push({ price, size });
  }
  return out;
}
