// Every read command on every store, end to end with the built CLI: `pull` fills an SQLite file and
// a PostgreSQL database from a real `msnap serve`; markets, snapshots, at (with --orderbook),
// quality and chart read either with --db and print what they print through the service. And
// msnap's own Parquet exports go back in with `serve import` (round trip as for CSV).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededService, type SeededService } from './support/seeded-service.js';
import { postgresBinDir, skipWithoutPostgres, startThrowawayPostgres, type ThrowawayPostgres } from './support/throwaway-postgres.js';

const noPostgres = skipWithoutPostgres('read-stores-e2e on postgres');
let svc: SeededService;
let pg: ThrowawayPostgres | undefined;
const stores: Record<string, string> = {};
let atTime = 0;

beforeAll(async () => {
  svc = await startSeededService('read-stores', ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0']);
  stores.sqlite = path.join(svc.dir, 'pulled.db');
  if (!noPostgres) {
    pg = await startThrowawayPostgres();
    stores.postgres = pg.url;
  }
  for (const db of Object.values(stores)) {
    const r = await svc.run(['pull', 'BTC', '5m', '--last', '2', '--orderbook', '--db', db]);
    expect(r.exitCode, String(r.stderr)).toBe(0);
  }
  const markets = JSON.parse(String((await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--json'])).stdout)) as Array<{ start_time: number; snapshot_count: number }>;
  atTime = markets.find((m) => m.snapshot_count === 2400)!.start_time + 100_010;
}, 180_000);

afterAll(async () => {
  await pg?.destroy();
  await svc?.close();
});

/** stdout of `args` through the service and with `--db` on each store; all must succeed. */
async function everywhere(args: string[]): Promise<{ service: string; local: Record<string, string> }> {
  const service = await svc.run(args);
  expect(service.exitCode, String(service.stderr)).toBe(0);
  const local: Record<string, string> = {};
  for (const [name, db] of Object.entries(stores)) {
    const r = await svc.run([...args, '--db', db]);
    expect(r.exitCode, `${name}: ${String(r.stderr)}`).toBe(0);
    local[name] = String(r.stdout);
  }
  return { service: String(service.stdout), local };
}

describe('read commands with --db on SQLite and PostgreSQL', () => {
  it('snapshots with orderbooks, at with --orderbook, quality and chart: the bytes the service gives', async () => {
    for (const args of [
      ['snapshots', 'BTC', '5m', '--last', '2', '--orderbook', '--csv'],
      ['at', 'BTC', '5m', String(atTime), '--orderbook', '--json'],
      ['at', 'BTC', '5m', String(atTime), '--csv'],
      ['quality', 'BTC', '5m', '--last', '2', '--csv'],
      ['chart', 'BTC', '5m', '--width', '80'],
    ]) {
      const { service, local } = await everywhere(args);
      expect(service.length, args.join(' ')).toBeGreaterThan(0);
      for (const [name, out] of Object.entries(local)) expect(out, `${name}: ${args.join(' ')}`).toBe(service);
    }
  }, 120_000);

  it('markets lists what pull stored, alike on both stores', async () => {
    const { local } = await everywhere(['markets', '--coin', 'BTC', '--type', '5m', '--all', '--csv']);
    const rows = local.sqlite!.trim().split('\n');
    expect(rows.length).toBeGreaterThanOrEqual(3);
    if (local.postgres !== undefined) expect(local.postgres).toBe(local.sqlite);
  }, 60_000);

  it('at --orderbook carries the books in every dialect; --times refuses it', async () => {
    const [v1, v4] = await Promise.all(['v1', 'v4'].map((api) => svc.run(['at', 'BTC', '5m', String(atTime), '--orderbook', '--json', '--api', api])));
    expect(v4!.stdout).toBe(v1!.stdout);
    const answer = JSON.parse(String(v1!.stdout)) as { snapshot: { orderbook_up?: { bids: unknown[] } } };
    expect(answer.snapshot.orderbook_up?.bids.length).toBeGreaterThan(0);
    const batch = await svc.run(['at', 'BTC', '5m', '--times', '-', '--orderbook'], { input: `${atTime}\n` });
    expect([batch.exitCode, batch.stderr]).toEqual([2, 'msnap: --orderbook works on one lookup, not with --times']);
  }, 60_000);
});

describe('serve import of msnap Parquet exports', () => {
  it('snapshots with orderbooks and markets go back in and come out the same', async () => {
    const snaps = path.join(svc.dir, 'snaps.parquet');
    const markets = path.join(svc.dir, 'markets.parquet');
    const wanted = { snapshots: ['snapshots', 'BTC', '5m', '--last', '2', '--orderbook', '--csv'], markets: ['markets', '--coin', 'BTC', '--type', '5m', '--limit', '2', '--csv'] };
    expect((await svc.run([...wanted.snapshots.slice(0, -1), '-o', snaps, '--quiet'])).exitCode).toBe(0);
    expect((await svc.run([...wanted.markets.slice(0, -1), '-o', markets, '--quiet'])).exitCode).toBe(0);
    // A new SQLite file and a new PostgreSQL database.
    const targets: Record<string, string> = { sqlite: path.join(svc.dir, 'from-parquet.db') };
    if (pg) {
      execFileSync(path.join(postgresBinDir()!, 'createdb'), ['-h', '127.0.0.1', '-p', String(pg.port), '-U', new URL(pg.url).username, 'from_parquet']);
      targets.postgres = pg.url.replace(/\/postgres$/, '/from_parquet');
    }
    for (const [name, db] of Object.entries(targets)) {
      // Snapshots first: into PostgreSQL, a market that snapshots alone made (through the staging
      // store) would take its price_end from the last snapshot over the imported market's own.
      for (const file of [snaps, markets]) {
        const r = await svc.run(['serve', 'import', file, '--db', db]);
        expect(r.exitCode, `${name}: ${String(r.stderr)}`).toBe(0);
        expect(String(r.stdout)).toMatch(/^imported .* \(parquet\): /);
      }
      for (const args of Object.values(wanted)) {
        const through = await svc.run(args);
        const back = await svc.run([...args, '--db', db]);
        expect(back.stdout, `${name}: ${args.join(' ')}`).toBe(through.stdout);
      }
    }
    rmSync(targets.sqlite!, { force: true });
  }, 120_000);
});
