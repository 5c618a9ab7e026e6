import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../store/seed/seed.js';
import { openSqliteStore } from '../../store/sqlite/open.js';
import type { RunningServer } from '../../server/listen.js';
import type { CliContext } from '../context.js';
import { parseServeFlags, runServe } from './serve.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30);
let dir: string;
let db: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-serve-'));
  db = path.join(dir, 's.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `msnap serve` in-process until the test says stop; returns what it printed and saw. */
async function serve(env: NodeJS.ProcessEnv, demo = false, probe?: (server: RunningServer) => Promise<void>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const ctx: CliContext = { stdout, stderr, stdin: Readable.from(['']), env, now: () => NOW, sleep: async () => {} };
  let stop!: (signal: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  let seen: { headersTimeout: number; requestTimeout: number } | undefined;
  const flags = parseServeFlags({ host: '127.0.0.1', port: '0', demo }, env);
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
    expect(r.out).toMatch(/^msnap serve listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(r.err).toBe('msnap serve: SIGTERM, finishing in-flight requests\n');
    expect(health).toMatchObject({ error: 'Unauthorized' });
    // The last connection closing removes the WAL file: the store was closed.
    expect(existsSync(`${db}-wal`)).toBe(false);
    expect(existsSync(db)).toBe(true);
  });

  it('keeps the defaults without the variables, and --demo prints each demo key once', async () => {
    const store = openSqliteStore(db);
    seedDatabase(store.bulk, { now: NOW, days: 1, fullMarkets: { '5m': 0, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } });
    store.close();
    const first = await serve({ MSNAP_DB: db }, true);
    expect(first.seen).toEqual({ headersTimeout: 10_000, requestTimeout: 30_000 });
    expect(first.out).toMatch(
      /^msnap serve listening on http:\/\/127\.0\.0\.1:\d+\ndemo builder key \(demo-builder\): msk_\w{40}\ndemo pro key \(demo-pro\): msk_\w{40}\n$/,
    );
    const second = await serve({ MSNAP_DB: db }, true);
    expect(second.out).toMatch(/^msnap serve listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(second.err).toBe(
      'msnap serve: demo-builder already has a key (printed when it was made); `msnap serve keys create --account demo-builder` makes another\n' +
        'msnap serve: demo-pro already has a key (printed when it was made); `msnap serve keys create --account demo-pro` makes another\n' +
        'msnap serve: SIGTERM, finishing in-flight requests\n',
    );
    expect(existsSync(`${db}-wal`)).toBe(false);
  });
});
