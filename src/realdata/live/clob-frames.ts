// The CLOB market channel's frames (REALDATA.md §3) read into the mapping's events: a frame holds
// one message or an array of them; `price_change` carries one change per asset in
// `price_changes[]`. Messages that move no level and no price (tick_size_change, best_bid_ask,
// new_market, market_resolved) give no event; a message that cannot be read is counted, not fatal.
import type { MarketEvent } from '../mapping/market-event.js';
import { publishedEvent } from '../mapping/published-event.js';
import { frameMessages } from './frame-messages.js';

/** What one frame held. */
export interface ClobFrame {
  events: MarketEvent[];
  /** Why messages of the frame were skipped (empty when all were read). */
  bad: string[];
  /** The frame was the keep-alive answer (`PONG`), not data. */
  keepAlive: boolean;
  /** The newest exchange time among its messages (for the lag shown), or undefined. */
  latest: number | undefined;
}

/** Event types that carry nothing the snapshots use. */
const IGNORED = new Set(['tick_size_change', 'best_bid_ask', 'new_market', 'market_resolved']);

type Message = Record<string, unknown>;

/** Use per received text frame of the market channel. */
export function readClobFrame(text: string): ClobFrame {
  const out: ClobFrame = { events: [], bad: [], keepAlive: false, latest: undefined };
  const f = frameMessages(text);
  if ('keepAlive' in f) return { ...out, keepAlive: true };
  if ('bad' in f) return { ...out, bad: [f.bad] };
  for (const m of f.messages) {
    if (!m || typeof m !== 'object' || Array.isArray(m)) {
      out.bad.push('a message that is not an object');
      continue;
    }
    readMessage(m as Message, out);
  }
  return out;
}

function readMessage(m: Message, out: ClobFrame): void {
  const type = typeof m.event_type === 'string' ? m.event_type : '';
  const ts = Number(m.timestamp);
  if (IGNORED.has(type)) return;
  if (!Number.isFinite(ts)) {
    out.bad.push(`${type || 'a message'} without a timestamp`);
    return;
  }
  out.latest = Math.max(out.latest ?? ts, ts);
  if (type === 'price_change') {
    // The published form lists changes per asset; an older form put asset_id on the message [u].
    const changes = Array.isArray(m.price_changes) ? m.price_changes : Array.isArray(m.changes) ? m.changes : undefined;
    if (!changes) {
      out.bad.push('price_change without price_changes');
      return;
    }
    for (const c of changes as Message[]) {
      const token = String(c?.asset_id ?? m.asset_id ?? '');
      push(out, 'price_change', publishedEvent({ type, ts, token, price: c?.price, size: c?.size, side: String(c?.side ?? '') }));
    }
    return;
  }
  if (type === 'book' || type === 'last_trade_price') {
    const token = typeof m.asset_id === 'string' ? m.asset_id : '';
    push(out, type, publishedEvent({ type, ts, token, bids: m.bids ?? m.buys, asks: m.asks ?? m.sells, price: m.price, size: m.size, side: String(m.side ?? '') }));
    return;
  }
  out.bad.push(`unknown event_type ${JSON.stringify(type).slice(0, 40)}`);
}

function push(out: ClobFrame, type: string, e: MarketEvent | undefined): void {
  if (e) out.events.push(e);
  else out.bad.push(`${type} that cannot be read`);
}
