import { describe, expect, it } from 'vitest';
import { readRtdsFrame, rtdsSubscribe } from './rtds-frames.js';

describe('RTDS frames', () => {
  it('subscribes to the coins on the Chainlink topic with the published filter text', () => {
    expect(JSON.parse(rtdsSubscribe(['BTC', 'ETH']))).toEqual({
      action: 'subscribe',
      subscriptions: [
        { topic: 'crypto_prices_chainlink', type: '*', filters: '{"symbol":"btc/usd"}' },
        { topic: 'crypto_prices_chainlink', type: '*', filters: '{"symbol":"eth/usd"}' },
      ],
    });
  });

  it('reads payload.value at payload.timestamp; other topics and symbols are passed over', () => {
    const f = readRtdsFrame(
      JSON.stringify([
        { topic: 'crypto_prices_chainlink', type: 'update', timestamp: 1776081601000, payload: { symbol: 'btc/usd', timestamp: 1776081600000, value: 84123.456789 } },
        { topic: 'crypto_prices', type: 'update', timestamp: 1, payload: { symbol: 'btcusdt', timestamp: 1, value: 1 } },
        { topic: 'crypto_prices_chainlink', type: 'update', timestamp: 1, payload: { symbol: 'xrp/usd', timestamp: 1776081600, value: 2.1 } },
        { topic: 'crypto_prices_chainlink', type: 'update', timestamp: 1, payload: { symbol: 'eth/usd', timestamp: 1776081600, value: '1612.3' } },
      ]),
    );
    expect(f.ticks).toEqual([
      { coin: 'BTC', ts: 1776081600000, price: 841234568 },
      { coin: 'ETH', ts: 1776081600000, price: 16123000 },
    ]);
    expect(readRtdsFrame('PONG').keepAlive).toBe(true);
    expect(readRtdsFrame('nope').bad).toHaveLength(1);
    expect(readRtdsFrame(JSON.stringify({ topic: 'crypto_prices_chainlink', payload: { symbol: 'btc/usd', timestamp: 5, value: null } })).bad).toHaveLength(1);
  });
});
