// End to end: `msnap pull BTC 5m --follow` (the built CLI) against the built `msnap serve --demo`
// running live over a small seeded file, both clocks shifted with MSNAP_CLOCK_OFFSET_MS to just
// after a 5m boundary. The first pull takes the market that just opened; the follow waits for the
// market that just ended to settle, pulls it whole, and SIGTERM stops it with exit 0. The mirror
// holds each market once, equal to the service's snapshots. The client speaks its default dialect
// (auto: v4 against serve), on the free (builder) plan's key.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, spawnMsnap } from './support/msnap-process.js';
import { startLiveDemo } from './support/live-demo.js';
import { until } from './support/until.js';

const FIVE_MIN = 300_000;
let dir: string;
let env: Record<string, string>;
let boundary: number;
let stopServe: () => Promise<unknown>;

/** The test's view of the served clock. */
const served = () => Date.now() + Number(env.MSNAP_CLOCK_OFFSET_MS);

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-follow-e2e-'));
  const demo = await startLiveDemo(dir, { plan: 'builder' });
  ({ boundary, env } = demo);
  stopServe = demo.stop;
}, 120_000);

afterAll(async () => {
  await stopServe?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Each market the mirror holds: its snapshot rows, distinct times among them, and its stored count. */
function mirrored(db: string): Map<string, { rows: number; times: number; count: number }> {
  if (!existsSync(db)) return new Map();
  const sql = new Database(db, { readonly: true });
  try {
    const rows = sql
      .prepare('SELECT m.market_id AS id, count(s.t) AS rows, count(DISTINCT s.t) AS times, m.snapshot_count AS count FROM markets m LEFT JOIN snapshots s ON s.market = m.id GROUP BY m.id')
      .all() as { id: string; rows: number; times: number; count: number }[];
    return new Map(rows.map((r) => [r.id, { rows: r.rows, times: r.times, count: r.count }]));
  } catch {
    return new Map();
  } finally {
    sql.close();
  }
}

describe('msnap pull --follow', () => {
  it('pulls the market that ends while following, once and whole, on a builder key; SIGTERM exits 0', async () => {
    const db = path.join(dir, 'mirror.db');
    const ended = `btc-updown-5m-${(boundary - FIVE_MIN) / 1000}`;
    const opened = `btc-updown-5m-${boundary / 1000}`;
    // Start just after the boundary: the latest market with snapshots is the one that just opened.
    await until(() => served() >= boundary + 1_500, 'the clock past the boundary', 30_000, 50);
    const proc = spawnMsnap(['pull', 'BTC', '5m', '--follow', '--db', db], { env, all: false });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    try {
      await until(() => mirrored(db).has(opened), 'the first pull', 20_000, 100);
      // Not yet settled: the ended market comes only after its end plus the settle delay.
      expect(mirrored(db).has(ended)).toBe(false);
      await until(() => (mirrored(db).get(ended)?.rows ?? 0) > 0 && /pulled btc-updown-5m-\d+: /.test(err), 'the ended market', 30_000, 100);
      expect(served()).toBeGreaterThanOrEqual(boundary + 5_000);
    } finally {
      proc.kill('SIGTERM');
    }
    const r = await proc;
    expect(r.exitCode, err).toBe(0);
    expect(err).toMatch(/^pulled 1 market into .*mirror\.db: 1 new/m);
    expect(err).toContain(`pulled ${ended}: 2,400 snapshots\n`);
    expect(err).toMatch(/stopped following BTC 5m: 1 market pulled into .*mirror\.db, 2,400 snapshots/);
    const m = mirrored(db);
    expect([...m.keys()].sort()).toEqual([ended, opened].sort());
    // Whole and once: every snapshot the service counts, no time twice.
    expect(m.get(ended)).toEqual({ rows: 2400, times: 2400, count: 2400 });
    expect(m.get(opened)!.rows).toBe(m.get(opened)!.times);
    // Equal to the service's snapshots of that market.
    const local = await msnap(['snapshots', ended, '--db', db, '--ndjson', '--quiet'], { env, cwd: dir });
    const remote = await msnap(['snapshots', ended, '--ndjson', '--quiet'], { env, cwd: dir });
    expect(local.exitCode, local.stderr).toBe(0);
    expect(local.stdout).toBe(remote.stdout);
  }, 90_000);

  it('refuses --follow with a market id, --to or --dry-run (exit 2, one line)', async () => {
    for (const args of [['pull', 'btc-updown-5m-1763769600', '--follow'], ['pull', 'BTC', '5m', '--follow', '--to', '1h'], ['pull', 'BTC', '5m', '--follow', '--dry-run']]) {
      const r = await msnap([...args, '--db', path.join(dir, 'x.db')], { env, cwd: dir });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });
});
