// createClient: the CLI's checks on its options, and the client core's retries and errors behind
// the reader (an undici MockAgent stands in for the service; the clock is fake, so no real waits).
import { describe, expect, it } from 'vitest';
import { AuthError, EXIT, NotFoundError, UsageError } from '../errors.js';
import { BASE, fakeClock, JSON_HEADERS, KEY, market, mockAgent, T0 } from '../client/test-support/mock-service.js';
import { createClient } from './client.js';

const base = { baseUrl: BASE, apiKey: KEY, api: 'v1' as const, paceStateDir: false as const };

describe('createClient options', () => {
  it('refuses what the CLI refuses, with the CLI error classes', () => {
    expect(() => createClient({ ...base, apiKey: undefined })).toThrow(AuthError);
    expect(() => createClient({ ...base, baseUrl: 'ftp://x' })).toThrow(UsageError);
    expect(() => createClient({ ...base, api: 'v9' as never })).toThrow(/'v9' is not an API version/);
    expect(() => createClient({ ...base, timeoutMs: 0 })).toThrow(UsageError);
    expect(() => createClient({ ...base, timeoutMs: 4_000_000 })).toThrow(UsageError);
  });
});

describe('the reader over the service', () => {
  it('retries a 503 and then reads every page of a market, oldest first', async () => {
    const agent = mockAgent();
    const clock = fakeClock();
    const m = market(T0);
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: from + i, market_id: m.market_id, time: T0 + (from + i) * 125, price: 97_000, price_up: 0.5, price_down: 0.5 }));
    const pool = agent.get(BASE);
    // As the CLI, the client reads the key's limits before paging (a service without them: paced by headers).
    pool.intercept({ path: '/api/v1/limits' }).reply(404, { error: 'Not found.' }, { headers: JSON_HEADERS });
    pool.intercept({ path: (p) => p.startsWith(`/api/v1/markets/${m.market_id}/snapshots`) }).reply(503, { error: 'busy' }, { headers: JSON_HEADERS });
    pool
      .intercept({ path: (p) => p.startsWith(`/api/v1/markets/${m.market_id}/snapshots`) && p.includes('offset=0') })
      .reply(200, { market: m, snapshots: rows(0, 3), total: 5, limit: 3, offset: 0 }, { headers: JSON_HEADERS });
    pool
      .intercept({ path: (p) => p.startsWith(`/api/v1/markets/${m.market_id}/snapshots`) && p.includes('offset=3') })
      .reply(200, { market: m, snapshots: rows(3, 2), total: 5, limit: 3, offset: 3 }, { headers: JSON_HEADERS });
    const answers: string[] = [];
    const client = createClient({
      ...base,
      dispatcher: agent,
      now: clock.now,
      sleep: clock.sleep,
      onRequest: (r) => answers.push(`${new URL(r.url).pathname.split('/').pop()} ${r.status} #${r.attempt}`),
    });
    const got = [];
    for await (const s of client.snapshots(m.market_id)) got.push(s.id);
    expect(got).toEqual([0, 1, 2, 3, 4]);
    expect(answers).toEqual(['limits 404 #1', 'snapshots 503 #1', 'snapshots 200 #2', 'snapshots 200 #1']);
    // The retry waited (on the fake clock) before its second attempt.
    expect(clock.sleeps.length).toBeGreaterThan(0);
    await client.close();
  });

  it('a 401 is an AuthError (exit 3) and a 404 a NotFoundError (exit 6)', async () => {
    const agent = mockAgent();
    const pool = agent.get(BASE);
    pool.intercept({ path: (p) => p.startsWith('/api/v1/markets/btc-updown-5m-1763769600') }).reply(401, { error: 'Invalid API key.' }, { headers: JSON_HEADERS });
    pool.intercept({ path: (p) => p.startsWith('/api/v1/markets/btc-updown-5m-1763769900') }).reply(404, { error: 'No market.' }, { headers: JSON_HEADERS });
    const client = createClient({ ...base, dispatcher: agent });
    const auth = await client.market('btc-updown-5m-1763769600').catch((e: unknown) => e);
    expect(auth).toBeInstanceOf(AuthError);
    expect((auth as AuthError).exitCode).toBe(EXIT.auth);
    expect(String((auth as Error).message)).not.toContain(KEY);
    const missing = await client.market('btc-updown-5m-1763769900').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).exitCode).toBe(EXIT.notFound);
    await client.close();
  });

  it('takes the CLI\'s TIME forms for a range and refuses an empty one', async () => {
    const client = createClient({ ...base, dispatcher: mockAgent(), now: () => T0 });
    await expect(client.snapshots('btc-updown-5m-1763769600', { from: '2h', to: '3h' }).next()).rejects.toThrow(/must be before/);
    await expect(client.snapshots('btc-updown-5m-1763769600', { from: 'yesterday' }).next()).rejects.toBeInstanceOf(UsageError);
    await expect(client.select({ coin: 'DOGE' as never, type: '5m' })).rejects.toThrow(UsageError);
    await client.close();
  });
});
