import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../../errors.js';
import { DAY, klineJson, klineRun } from '../test-support/binance-klines.js';
import { FAST_RETRY, localHttp, sendJson, type LocalHttp } from '../test-support/local-http.js';
import { BINANCE_SYMBOL } from './binance-symbol.js';
import { fetchKlines } from './kline-fetch.js';
import { priceAt } from './kline-series.js';

let server: LocalHttp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Binance's klines route over 1s klines from DAY on: those opening in [startTime, endTime], `limit` at most. */
function binance(seconds: number, opts: { failFirst?: boolean; micro?: boolean } = {}) {
  const all = klineJson(klineRun(DAY, seconds, opts.micro)) as unknown[][];
  let failed = !opts.failFirst;
  return localHttp((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/api/v3/klines') return sendJson(res, { code: -1, msg: 'not found' }, 404);
    if (!failed) {
      failed = true;
      return sendJson(res, { code: -1001, msg: 'Internal error' }, 502);
    }
    if (url.searchParams.get('symbol') !== 'BTCUSDT') return sendJson(res, { code: -1121, msg: 'Invalid symbol.' }, 400);
    const start = Number(url.searchParams.get('startTime'));
    const end = Number(url.searchParams.get('endTime'));
    const limit = Number(url.searchParams.get('limit'));
    const scale = opts.micro ? 1000 : 1;
    sendJson(res, all.filter((k) => Number(k[0]) / scale >= start && Number(k[0]) / scale <= end).slice(0, limit));
  });
}

describe('fetchKlines', () => {
  it('pages 1000 klines at a time until endMs, from the kline before startMs', async () => {
    server = await binance(3000);
    const start = DAY + 10_000;
    const end = DAY + 2_509_000;
    const s = await fetchKlines(server.base, BINANCE_SYMBOL.BTC, '1s', start, end, FAST_RETRY);
    expect(s).toMatchObject({ symbol: 'BTCUSDT', interval: '1s' });
    expect(server.paths).toEqual([
      `/api/v3/klines?symbol=BTCUSDT&interval=1s&startTime=${start - 1000}&endTime=${end}&limit=1000`,
      `/api/v3/klines?symbol=BTCUSDT&interval=1s&startTime=${start + 999_000}&endTime=${end}&limit=1000`,
      `/api/v3/klines?symbol=BTCUSDT&interval=1s&startTime=${start + 1_999_000}&endTime=${end}&limit=1000`,
    ]);
    expect(s.closeTimes.length).toBe(2501);
    expect(priceAt(s, start)).toBe(70_009);
    expect(priceAt(s, end + 999)).toBe(70_000 + 2509);
  });

  it('stops after a full last page when the next would start past endMs, and retries a 5xx', async () => {
    server = await binance(3000, { failFirst: true });
    const s = await fetchKlines(server.base, 'BTCUSDT', '1s', DAY + 1000, DAY + 999_000, FAST_RETRY);
    expect(s.closeTimes.length).toBe(1000);
    expect(server.paths).toHaveLength(2);
  });

  it('reads pages whose times are in µs', async () => {
    server = await binance(20, { micro: true });
    const s = await fetchKlines(server.base, 'BTCUSDT', '1s', DAY + 1000, DAY + 5000, FAST_RETRY);
    expect([...s.closeTimes]).toEqual([999, 1999, 2999, 3999, 4999, 5999].map((t) => DAY + t));
  });

  it('names the URL of a refusal: a 400 for an unknown symbol, a 404 for a wrong base URL', async () => {
    server = await binance(10);
    const e400 = await fetchKlines(server.base, 'NOPEUSDT', '1m', DAY, DAY + 60_000, FAST_RETRY).catch((e: unknown) => e);
    expect((e400 as Error).message).toBe(
      `${server.base}/api/v3/klines?symbol=NOPEUSDT&interval=1m&startTime=${DAY - 60_000}&endTime=${DAY + 60_000}&limit=1000 answered 400: {"code":-1121,"msg":"Invalid symbol."}`,
    );
    expect(await fetchKlines(`${server.base}/binance`, 'BTCUSDT', '1s', DAY, DAY + 1000, FAST_RETRY).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
  });

  it('refuses an answer that is not klines, naming the page', async () => {
    server = await localHttp((_req, res) => sendJson(res, [[1, 2, 3]]));
    const err = await fetchKlines(server.base, 'BTCUSDT', '1s', DAY, DAY + 1000, FAST_RETRY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/\/api\/v3\/klines\?symbol=BTCUSDT&.*: item 1: 3 columns, a Binance kline has 12: not a kline file$/);
  });
});
