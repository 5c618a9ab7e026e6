// The quality report over the real client core, with the hosted service stood in by undici's
// MockAgent: values a local store refuses to import (probabilities outside [0, 1], numeric strings)
// can still arrive from a service, and the report must count them.
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MsnapClient } from '../../client/client.js';
import { runWithGlobals, type ClientFactory } from '../deps.js';
import { fakeContext, market } from '../test-support/fake-cli.js';
import { parseQualityArgs, runQuality } from './quality.js';

const BASE = 'http://hosted.test';
const START = 1763769600000;
let agent: MockAgent;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const factory: ClientFactory = (conn, hooks) =>
  new MsnapClient({ baseUrl: BASE, apiKey: conn.apiKey!, dispatcher: agent, now: hooks.now, sleep: hooks.sleep, onWarning: hooks.onWarning, pacing: false });

function serveMarket(snapshots: unknown[]): string {
  const m = market('BTC', '5m', START, snapshots.length);
  const pool = agent.get(BASE);
  pool.intercept({ path: `/api/v1/markets/${m.market_id}`, method: 'GET' }).reply(200, { market: m });
  pool
    .intercept({ path: (p) => p.startsWith(`/api/v1/markets/${m.market_id}/snapshots?`), method: 'GET' })
    .reply(200, { market: m, snapshots, total: snapshots.length, limit: 10000, offset: 0 });
  return m.market_id;
}

describe('quality over the client core', () => {
  it('counts probabilities outside [0, 1] that a service sends, numeric strings included', async () => {
    const rows: Record<string, unknown>[] = Array.from({ length: 2400 }, (_, i) => ({
      id: i,
      time: START + i * 125,
      price: 97000 + (i % 2) * 0.01,
      price_up: 0.5,
      price_down: 0.5,
    }));
    rows[10] = { ...rows[10], price_up: 1.2, price_down: -0.2 };
    rows[11] = { ...rows[11], price_up: '-0.01', price_down: '1.01' };
    const id = serveMarket(rows.map((r) => ({ ...r, market_id: market('BTC', '5m', START, 0).market_id })));
    const { ctx, stdout } = fakeContext({ env: { MSNAP_API_KEY: 'msk_test' }, now: START + 3_600_000 });
    let problems = 0;
    await runWithGlobals(ctx, { json: true }, async (deps) => {
      problems = await runQuality(parseQualityArgs(id, undefined, {}, ctx.now()), deps);
    }, factory);
    const [report] = JSON.parse(stdout.text()) as Record<string, unknown>[];
    expect(report).toMatchObject({ market_id: id, present: 2400, gaps: 0, bad_probabilities: 2, sum_outside: 0, problems: 2 });
    expect(problems).toBe(2);
  });

  it('checks --sum-tolerance and refuses values that are not a fraction', () => {
    expect(parseQualityArgs('BTC', '5m', { sumTolerance: '0.1', strict: true }, START)).toMatchObject({ sumTolerance: 0.1, strict: true });
    for (const bad of ['-1', '1', 'x', '0.1.2']) {
      expect(() => parseQualityArgs('BTC', '5m', { sumTolerance: bad }, START)).toThrow(/^--sum-tolerance must be a number in \[0, 1\)/);
    }
    expect(() => parseQualityArgs('btc-updown-5m-1763769600', undefined, { last: '2' }, START)).toThrow(/--last needs COIN TYPE/);
  });
});
