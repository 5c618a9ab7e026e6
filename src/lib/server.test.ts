// msnap/server's replay: a bot's own test starts a replaying server in-process, moves the wall
// clock by hand, and sees history appear on the replay clock with nothing after it visible.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { createKey, seedStore, startServer, type RunningService } from './server.js';

// The seed's world ends at NOW; the replay starts an hour before it.
const NOW = Date.UTC(2025, 10, 22, 12, 2, 30);
const FROM = NOW - 3_600_000;
const dir = mkdtempSync(path.join(tmpdir(), 'msnap-lib-server-'));
const db = path.join(dir, 'replay.db');
let key: string;

beforeAll(async () => {
  await seedStore(db, { now: () => NOW, full: { '5m': 2 } });
  key = await createKey(db, { account: 'bot', plan: 'pro', now: () => NOW });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function get<T>(server: RunningService, url: string): Promise<T> {
  const res = await fetch(server.url + url, { headers: { 'X-API-Key': key } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

interface Listed {
  markets: { market_id: string; start_time: number; end_time: number; status: string; snapshot_count: number }[];
}

describe('startServer({ replay })', () => {
  it('answers at the replay clock, which runs at `speed` times the injected wall clock', async () => {
    let wall = NOW + 86_400_000; // the wall clock is a day later; only the replay clock matters for data
    const server = await startServer({ store: db, now: () => wall, replay: { from: new Date(FROM), speed: 60 } });
    try {
      const first = await get<{ now: number; speed: number; mode: string; until: number }>(server, '/v1/clock');
      expect(first).toMatchObject({ now: FROM, speed: 60, mode: 'replay' });
      expect(first.until).toBeLessThanOrEqual(NOW);
      const before = await get<Listed>(server, '/api/v1/markets?coin=btc&market_type=5m&limit=100');
      expect(before.markets.length).toBeGreaterThan(0);
      for (const m of before.markets) expect(m.start_time).toBeLessThanOrEqual(FROM);
      // 30 wall seconds at 60x: half an hour of history.
      wall += 30_000;
      const later = await get<{ now: number }>(server, '/v1/clock');
      expect(later.now).toBe(FROM + 1_800_000);
      const after = await get<Listed>(server, '/api/v1/markets?coin=btc&market_type=5m&limit=100');
      const opened = after.markets.filter((m) => m.start_time > FROM);
      expect(opened.length).toBe(6); // a 5m market every 5 minutes of the half hour
      for (const m of after.markets) {
        expect(m.start_time).toBeLessThanOrEqual(later.now);
        if (m.end_time > later.now) expect(m.status).toBe('active');
      }
    } finally {
      await server.close();
    }
  });

  it('checks the replay the way `serve` checks its flags', async () => {
    await expect(startServer({ store: db, replay: { from: FROM, speed: 0 } })).rejects.toThrow(UsageError);
    await expect(startServer({ store: db, replay: { from: 'yesterday-ish' } })).rejects.toThrow(/--replay/);
    await expect(startServer({ store: db, replay: { from: FROM, until: FROM - 1 } })).rejects.toThrow(UsageError);
    await expect(startServer({ store: db, live: true, replay: { from: FROM } })).rejects.toThrow(/--live/);
    await expect(startServer({ store: 'postgres://127.0.0.1/x', live: true })).rejects.toThrow(/PostgreSQL/);
  });
});
