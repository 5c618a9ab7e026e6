import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../errors.js';
import { gammaEventJson, gammaMarketJson } from '../test-support/gamma-events.js';
import { FAST_RETRY, localHttp, sendJson, type LocalHttp } from '../test-support/local-http.js';
import { fetchGammaMarkets } from './gamma-fetch.js';

let server: LocalHttp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Gamma's events route over `events`: an array with the event of the slug asked, `[]` for another. */
function gamma(events: Record<string, unknown>[], delayMs = 0) {
  return localHttp(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/events') return sendJson(res, { error: 'not found' }, 404);
    await new Promise((r) => setTimeout(r, delayMs));
    sendJson(res, events.filter((e) => e['slug'] === url.searchParams.get('slug')));
  });
}

const slugs = ['btc-updown-5m-1776070800', 'btc-updown-5m-1776071100', 'btc-updown-5m-1776071400', 'btc-updown-5m-1776071700', 'btc-updown-5m-1776072000'];
const events = slugs.map((slug, i) => gammaEventJson([gammaMarketJson({ slug, conditionId: '0x' + String(i).repeat(64) })]));

describe('fetchGammaMarkets', () => {
  it('asks the events route for each slug, a bounded number at a time, and lists the slugs Gamma does not know', async () => {
    server = await gamma(events.slice(0, 4), 20);
    const asked = [...slugs, slugs[0]!];
    const r = await fetchGammaMarkets(`${server.base}/`, asked, { ...FAST_RETRY, concurrency: 2 });
    expect(r.markets.map((m) => m.slug)).toEqual(slugs.slice(0, 4));
    expect(r.missing).toEqual([slugs[4]]);
    expect(r.skipped).toEqual([]);
    expect(server.paths.sort()).toEqual(slugs.map((s) => `/events?slug=${s}`).sort());
    expect(server.maxInFlight).toBe(2);
  });

  it('asks 4 at a time unless told otherwise', async () => {
    server = await gamma(events, 30);
    const many = Array.from({ length: 10 }, (_, i) => `btc-updown-5m-${1776070800 + 300 * i}`);
    const r = await fetchGammaMarkets(server.base, many, FAST_RETRY);
    expect(r.missing).toHaveLength(5);
    expect(server.maxInFlight).toBe(4);
  });

  it('reports markets it passes over (an XRP market) apart from missing ones', async () => {
    const xrp = gammaEventJson([gammaMarketJson({ slug: 'xrp-updown-5m-1776070800' })]);
    server = await gamma([xrp]);
    const r = await fetchGammaMarkets(server.base, ['xrp-updown-5m-1776070800'], FAST_RETRY);
    expect(r).toEqual({ markets: [], missing: [], skipped: [{ slug: 'xrp-updown-5m-1776070800', reason: 'coin xrp is not served (BTC, ETH, SOL)' }] });
  });

  it('retries a 500 and goes on', async () => {
    let failed = false;
    server = await localHttp((_req, res) => {
      if (!failed) {
        failed = true;
        return sendJson(res, { error: 'internal' }, 500);
      }
      sendJson(res, [events[0]]);
    });
    const r = await fetchGammaMarkets(server.base, [slugs[0]!], FAST_RETRY);
    expect(r.markets.map((m) => m.marketId)).toEqual(['btc-updown-5m-1776070800']);
    expect(server.paths).toHaveLength(2);
  });

  it('stops at a 404 (a wrong base URL), naming the URL, without retrying', async () => {
    server = await gamma(events);
    const err = await fetchGammaMarkets(`${server.base}/v2`, [slugs[0]!], FAST_RETRY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe(`${server.base}/v2/events?slug=${slugs[0]} answered 404 Not Found`);
    expect(server.paths).toHaveLength(1);
  });
});
