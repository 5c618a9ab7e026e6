// End to end: the built `msnap serve --replay FROM --speed 60` over a seeded file, polled like a
// bot polls `/v4/markets?coin=btc`. A 5m market of the stored history goes unknown -> active ->
// resolved on the replay clock, and every answer is checked against /v1/clock read before and
// after it: nothing that starts, resolves or is snapshotted after the clock's `now` is shown.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, seed, startServe, type Served } from './support/msnap-process.js';
import { until } from './support/until.js';

const FIVE_MIN = 300_000;
const SPEED = 60;
let dir: string;
let served: Served;
let key: string;
let boundary: number;

interface Clock {
  now: number;
  speed: number;
  mode: string;
  until: number | null;
}

interface V4Market {
  market_id: string;
  start_time: number;
  end_time: number;
  btc_price_end: number | null;
  winner: string | null;
  resolved_at: number | null;
  snapshot_count: number;
}

async function get<T>(pathAndQuery: string): Promise<T> {
  const r = await fetch(served.url + pathAndQuery, { headers: { 'X-API-Key': key } });
  if (r.status !== 200) throw new Error(`${pathAndQuery}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-replay-e2e-'));
  const db = path.join(dir, 'replay.db');
  await seed(db, ['--days', '1']);
  key = await createKey(db, 'bot', 'enterprise');
  // A 5m market two hours back in the seeded day (it has every snapshot); the replay starts a
  // replay minute (a wall second at 60x) before it opens.
  boundary = Math.floor((Date.now() - 2 * 3_600_000) / FIVE_MIN) * FIVE_MIN;
  served = await startServe(db, { args: ['--replay', String(boundary - 60_000), '--speed', String(SPEED)] });
}, 180_000);

afterAll(async () => {
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('serve --replay at 60x', () => {
  it('reports its clock: replay mode, the speed, a stop at the newest snapshot', async () => {
    const clock = await get<Clock>('/v1/clock');
    expect(clock.mode).toBe('replay');
    expect(clock.speed).toBe(SPEED);
    expect(clock.now).toBeGreaterThanOrEqual(boundary - 60_000);
    // The seed's newest snapshot is close to when it ran (a few seconds before the server started).
    expect(clock.until).toBeGreaterThan(Date.now() - 120_000);
    expect(clock.until).toBeLessThanOrEqual(Date.now());
    expect(served.output()).toMatch(/msnap serve: replaying from \S+ at 60x until \S+/);
  });

  it('a bot polling /v4/markets?coin=btc sees a 5m market open and resolve, never ahead of the clock', async () => {
    const id = `btc-updown-5m-${boundary / 1000}`;
    const phases: string[] = [];
    let polls = 0;
    await until(
      async () => {
        const before = (await get<Clock>('/v1/clock')).now;
        const { markets: data } = await get<{ markets: V4Market[] }>('/v4/markets?coin=btc&limit=50');
        const after = (await get<Clock>('/v1/clock')).now;
        polls++;
        for (const m of data) {
          expect(m.start_time, m.market_id).toBeLessThanOrEqual(after);
          if (m.end_time > after) {
            expect(m, m.market_id).toMatchObject({ btc_price_end: null, winner: null, resolved_at: null });
          }
          if (m.resolved_at !== null) expect(m.resolved_at, m.market_id).toBeLessThanOrEqual(after);
          // At most one snapshot every 125 ms from the start up to the clock.
          expect(m.snapshot_count, m.market_id).toBeLessThanOrEqual(Math.floor((Math.min(after, m.end_time - 1) - m.start_time) / 125) + 1);
        }
        const m = data.find((x) => x.market_id === id);
        const phase = !m ? 'unknown' : m.end_time > after ? 'active' : 'resolved';
        if (!m) expect(before).toBeLessThan(boundary);
        if (m && m.end_time <= before) expect(m.winner).toMatch(/^(Up|Down)$/);
        if (m && m.snapshot_count > 0) {
          // The page agrees with the count, and its last snapshot is not after the clock.
          const page = await get<{ total: number; snapshots: { time: number }[] }>(`/v4/markets/${id}/snapshots?coin=btc&limit=1&offset=${m.snapshot_count - 1}`);
          const read = (await get<Clock>('/v1/clock')).now;
          expect(page.total).toBeGreaterThanOrEqual(m.snapshot_count);
          expect(page.snapshots[0]!.time).toBeLessThanOrEqual(read);
          expect(page.snapshots[0]!.time).toBeLessThanOrEqual(Math.max(after, m.end_time));
        }
        if (phases.at(-1) !== phase) phases.push(phase);
        return phase === 'resolved' && m!.end_time <= before;
      },
      `${id} to resolve on the replay clock`,
      60_000,
      100,
    );
    expect(phases).toEqual(['unknown', 'active', 'resolved']);
    expect(polls).toBeGreaterThan(3);
  });
});

describe('serve --replay from outside the stored data', () => {
  it('warns when FROM is after the newest snapshot or before the oldest market, and not inside the data', async () => {
    const db = path.join(dir, 'replay.db');
    const after = Date.now() + 86_400_000;
    const before = Date.UTC(2020, 0, 1);
    for (const [from, words] of [
      [after, `--replay ${new Date(after).toISOString()} is after the newest stored snapshot \\(\\S+\\): nothing is left to replay`],
      [before, `--replay ${new Date(before).toISOString()} is before the oldest stored market \\(\\S+\\): nothing shows until the clock reaches it`],
    ] as const) {
      const s = await startServe(db, { args: ['--replay', String(from)] });
      await s.stop();
      expect(s.output()).toMatch(new RegExp(`msnap serve: warning: ${words}\n`));
    }
    expect(served.output()).not.toMatch(/warning/);
  }, 60_000);
});
