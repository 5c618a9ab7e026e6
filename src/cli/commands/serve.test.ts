import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { marketId, marketStartCovering } from '../../domain/market.js';
import { seedDatabase } from '../../store/seed/seed.js';
import { openBulkStore } from '../../store/open-store.js';
import type { RunningServer } from '../../server/listen.js';
import type { CliContext } from '../context.js';
import { parseServeFlags } from './serve-flags.js';
import { runServe } from './serve.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30);
let dir: string;
let db: string;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-serve-'));
  db = path.join(dir, 's.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `msnap serve` in-process until the test says stop; returns what it printed and saw. */
async function serve(env: NodeJS.ProcessEnv, demo = false, probe?: (server: RunningServer) => Promise<void>, clock = NOW, live?: boolean) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const ctx: CliContext = { stdout, stderr, stdin: Readable.from(['']), env, now: () => clock, sleep: async () => {} };
  let stop!: (signal: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  let seen: { headersTimeout: number; requestTimeout: number } | undefined;
  const flags = parseServeFlags({ host: '127.0.0.1', port: '0', demo, live }, env);
  await runServe(flags, {
    ctx,
    waitForStop: () => stopped,
    onListening: (server) => {
      seen = { headersTimeout: server.server.headersTimeout, requestTimeout: server.server.requestTimeout };
      void (probe ? probe(server) : Promise.resolve()).finally(() => stop('SIGTERM'));
    },
  });
  return { out, err, seen };
}

describe('runServe', () => {
  it('gives the listener the timeouts from its environment and closes the store it opened', async () => {
    let health: unknown;
    const r = await serve({ MSNAP_DB: db, MSNAP_HEADERS_TIMEOUT_MS: '250', MSNAP_REQUEST_TIMEOUT_MS: '400' }, false, async (s) => {
      health = (await (await fetch(`${s.url}/api/health`)).json()) as unknown;
    });
    expect(r.seen).toEqual({ headersTimeout: 250, requestTimeout: 400 });
    // The dashboard's address follows the listening line.
    expect(r.out).toMatch(/^msnap serve listening on http:\/\/127\.0\.0\.1:\d+\ndashboard \(sign up, keys, markets\): http:\/\/127\.0\.0\.1:\d+\/ in a browser\n$/);
    // The database did not exist: serve says it made an empty one (a mistyped --db shows at once).
    expect(r.err).toBe(
      `msnap serve: ${db} did not exist: created an empty database (no markets, no keys); fill it with msnap serve seed --db ${db} or msnap serve import, or use --demo\n` +
        'msnap serve: SIGTERM, finishing in-flight requests\n',
    );
    expect(health).toMatchObject({ error: 'Unauthorized' });
    // The last connection closing removes the WAL file: the store was closed.
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(db)).toBe(true);
  });

  it('keeps the defaults without the variables, and --demo prints each demo key once', async () => {
    const store = await openBulkStore(db);
    seedDatabase(store.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 0, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } });
    store.closeSync();
    const first = await serve({ MSNAP_DB: db }, true);
    expect(first.seen).toEqual({ headersTimeout: 10_000, requestTimeout: 30_000 });
    expect(first.out).toMatch(
      /^msnap serve listening on http:\/\/127\.0\.0\.1:\d+\ndashboard \(sign up, keys, markets\): http:\/\/127\.0\.0\.1:\d+\/ in a browser\ndemo builder key \(demo-builder\): msk_\w{40}\ndemo pro key \(demo-pro\): msk_\w{40}\n$/,
    );
    const second = await serve({ MSNAP_DB: db }, true);
    expect(second.out).toMatch(/^msnap serve listening on http:\/\/127\.0\.0\.1:\d+\ndashboard \(sign up, keys, markets\): http:\/\/127\.0\.0\.1:\d+\/ in a browser\n$/);
    expect(second.err).toBe(
      'msnap serve: demo-builder already has a key (printed when it was made); `msnap serve keys create --account demo-builder` makes another\n' +
        'msnap serve: demo-pro already has a key (printed when it was made); `msnap serve keys create --account demo-pro` makes another\n' +
        'msnap serve: live: seed 1 runs on; caught up 0 snapshots (at most the last 2 h), opened 0 markets, resolved 0\n' +
        'msnap serve: SIGTERM, finishing in-flight requests\n',
    );
    expect(existsSync(`${db}-wal`)).toBe(false);
  });

  it('--live catches the seeded world up to the clock before listening; --no-live serves it as stored', async () => {
    const store = await openBulkStore(db);
    seedDatabase(store.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 1, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } });
    store.closeSync();
    const later = NOW + 60 * 60_000;
    const current = marketId('BTC', '5m', marketStartCovering('5m', later));
    const read = async (live: boolean) => {
      let market: unknown;
      const r = await serve({ MSNAP_DB: db }, false, async () => {
        const check = await openBulkStore(db);
        market = await check.getMarket(current, later);
        check.closeSync();
      }, later, live);
      return { market, err: r.err };
    };
    const frozen = await read(false);
    expect(frozen.market).toBeUndefined();
    expect(frozen.err).toBe('msnap serve: SIGTERM, finishing in-flight requests\n');
    const live = await read(true);
    expect(live.market).toMatchObject({ status: 'active', snapshot_count: Math.floor((later % 300_000) / 125) + 1 });
    // An hour for 3 coins x 5 types at 8/s; 12 5m, 4 15m and one 1hr market per coin opened; the 3
    // markets per coin that were active at seed time (5m, 15m, 1hr) resolved.
    expect(live.err).toBe(
      'msnap serve: live: seed 1 runs on; caught up 432000 snapshots (at most the last 2 h), opened 51 markets, resolved 9\n' +
        'msnap serve: SIGTERM, finishing in-flight requests\n',
    );
  });

  it('--live on a database no seed made (imported data only) says so and serves it as stored', async () => {
    const store = await openBulkStore(db);
    const start = marketStartCovering('5m', NOW);
    store.bulk.upsertMarket({ marketId: marketId('BTC', '5m', start), coin: 'BTC', marketType: '5m', startTime: start, endTime: start + 300_000, priceStart: 1, priceEnd: null, winner: null });
    store.closeSync();
    const r = await serve({ MSNAP_DB: db }, false, undefined, NOW, true);
    expect(r.err).toBe(
      `msnap serve: --live: ${db} holds no seeded world (\`msnap serve seed\` or --demo makes one); serving it as stored\n` +
        'msnap serve: SIGTERM, finishing in-flight requests\n',
    );
  });
});
