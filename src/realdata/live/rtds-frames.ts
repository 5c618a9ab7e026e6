// RTDS frames (REALDATA.md §4) read into Chainlink prices: `{topic, type, timestamp,
// payload: {symbol, timestamp, value}}` on topic `crypto_prices_chainlink`; a frame may hold
// an array of messages. Prices of other topics and symbols msnap has no markets for are passed over.
import type { Coin } from '../../domain/market.js';
import { PRICE_DECIMALS, scaledValue } from '../mapping/decimal.js';
import { frameMessages } from './frame-messages.js';

/** One Chainlink price: the coin, the time it is known from (payload.timestamp, ms) and its value in units of 10^-PRICE_DECIMALS. */
export interface ChainlinkTick {
  coin: Coin;
  ts: number;
  price: number;
}

/** What one frame held. */
export interface RtdsFrame {
  ticks: ChainlinkTick[];
  bad: string[];
  keepAlive: boolean;
}

/** The topic the recorder subscribes to, and the symbol of each coin on it. */
const CHAINLINK_TOPIC = 'crypto_prices_chainlink';
const CHAINLINK_SYMBOL: Readonly<Record<Coin, string>> = { BTC: 'btc/usd', ETH: 'eth/usd', SOL: 'sol/usd' };
const COIN_OF = new Map(Object.entries(CHAINLINK_SYMBOL).map(([coin, symbol]) => [symbol, coin as Coin]));

/** Use to subscribe to the coins' Chainlink prices (one message). */
export function rtdsSubscribe(coins: readonly Coin[]): string {
  return JSON.stringify({
    action: 'subscribe',
    subscriptions: coins.map((c) => ({ topic: CHAINLINK_TOPIC, type: '*', filters: JSON.stringify({ symbol: CHAINLINK_SYMBOL[c] }) })),
  });
}

/** Use per received text frame of RTDS. */
export function readRtdsFrame(text: string): RtdsFrame {
  const out: RtdsFrame = { ticks: [], bad: [], keepAlive: false };
  const f = frameMessages(text);
  if ('keepAlive' in f) return { ...out, keepAlive: true };
  if ('bad' in f) return { ...out, bad: [f.bad] };
  for (const m of f.messages) {
    const msg = (m && typeof m === 'object' ? m : {}) as { topic?: unknown; payload?: { symbol?: unknown; timestamp?: unknown; value?: unknown } };
    if (msg.topic !== CHAINLINK_TOPIC) continue;
    const coin = COIN_OF.get(String(msg.payload?.symbol ?? '').toLowerCase());
    if (!coin) continue;
    const raw = Number(msg.payload?.timestamp);
    // Seconds or ms, told by magnitude [u].
    const ts = raw < 1e11 ? raw * 1000 : raw;
    const price = scaledValue(msg.payload?.value, PRICE_DECIMALS);
    if (!Number.isFinite(ts) || !Number.isFinite(price) || price <= 0) {
      out.bad.push(`a ${CHAINLINK_TOPIC} message that cannot be read`);
      continue;
    }
    out.ticks.push({ coin, ts, price });
  }
  return out;
}
