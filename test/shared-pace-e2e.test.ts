// Two built-CLI exports in parallel on one builder key, through a proxy that delays every
// request and answer at random: the processes share one pace through the state file, so the
// wire shows no 429 between them and together they take no longer than one process exporting
// all of their markets (measured in the same test, on another key). And an enterprise key with a
// custom `--burst 1` draws no 429 right after its limits request, in v1 and in v4.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../src/client/test-support/paced-network.js';
import { startDelayProxy, type DelayProxy } from './support/delay-proxy.js';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';

/** Markets each parallel export writes (one request each, plus /limits and the market list). */
const MARKETS = 100;

let dir: string;
let served: Served;
let proxy: DelayProxy;
let soloKey: string;
let sharedKey: string;
const burstOne: Record<string, string> = {};

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-shared-pace-'));
  const db = path.join(dir, 'pace.db');
  await seed(db, ['--days', '1', '--full', `5m=${2 * MARKETS + 2},15m=0,1hr=0,4hr=0,24hr=0`]);
  soloKey = await createKey(db, 'pace-solo', 'builder');
  sharedKey = await createKey(db, 'pace-shared', 'builder');
  for (const api of ['v1', 'v4']) burstOne[api] = await createKey(db, `burst-one-${api}`, 'enterprise', ['--burst', '1', '--rpm', '600']);
  served = await startServe(db);
  const random = seededRandom(2026);
  // 1-40 ms each way, and now and then 250 ms.
  proxy = await startDelayProxy(served.url, () => 1 + Math.floor(random() * 40) + (random() < 0.02 ? 250 : 0));
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await served?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Run exports of `--last N` for each N in parallel on `key`; resolves with the wall time of them all. */
async function exportsOn(key: string, lasts: number[]): Promise<number> {
  const stateDir = path.join(dir, 'state');
  const env = { MSNAP_BASE_URL: proxy.url, MSNAP_API_KEY: key, MSNAP_STATE_DIR: stateDir, MSNAP_CONFIG_DIR: path.join(dir, 'config'), MSNAP_API: 'v1' };
  const started = performance.now();
  const runs = await Promise.all(
    lasts.map((n, i) => {
      const out = path.join(dir, `${key.slice(-6)}-${i}.csv`);
      return msnap(['snapshots', 'BTC', '5m', '--last', String(n), '--csv', '-o', out, '--quiet'], { env, cwd: dir, timeout: 120_000 }).then((r) => ({ r, out, n }));
    }),
  );
  const wall = performance.now() - started;
  for (const { r, out, n } of runs) {
    expect(r.exitCode, r.stderr).toBe(0);
    // A header and at least 2,000 rows per market (the newest one may still be running).
    expect(readFileSync(out, 'utf8').trimEnd().split('\n').length).toBeGreaterThan(n * 2000);
  }
  return wall;
}

describe('processes sharing a key', () => {
  it('two parallel exports draw no 429 and take hardly longer than one export of all their markets', async () => {
    const solo = await exportsOn(soloKey, [2 * MARKETS]);
    const soloRequests = proxy.log.length;
    proxy.log.length = 0;
    const pair = await exportsOn(sharedKey, [MARKETS, MARKETS]);

    expect(proxy.log.filter((e) => e.status !== 200)).toEqual([]);
    // Two processes each ask for /limits and the market list once.
    expect(proxy.log.length).toBe(soloRequests + 2);
    // Two pacers that did not share would each take the whole budget and meet 429s (checked above);
    // this bound only catches a shared pace that wastes its budget. The 5% figure is the bench's
    // (figure 1 and BENCHMARKS.md): a timed bound this tight here failed at 1.054 on a loaded box.
    expect(pair / solo, `parallel ${pair.toFixed(0)} ms, one process ${solo.toFixed(0)} ms`).toBeLessThanOrEqual(1.15);
    // The shared state lives in the given directory, named by a hash: no key in any file name.
    const files = readdirSync(path.join(dir, 'state'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.some((f) => f.includes(sharedKey) || f.includes(soloKey))).toBe(false);
  }, 150_000);
});

describe('a key whose burst the first answer cannot tell (enterprise --burst 1)', () => {
  it('draws no 429 after the limits request, in v1 and in v4', async () => {
    for (const api of ['v1', 'v4']) {
      const env = {
        MSNAP_BASE_URL: served.url,
        MSNAP_API_KEY: burstOne[api],
        MSNAP_STATE_DIR: path.join(dir, 'state-burst-one'),
        MSNAP_CONFIG_DIR: path.join(dir, 'config'),
        MSNAP_API: api,
      };
      const r = await msnap(['snapshots', 'BTC', '5m', '--last', '3', '--csv', '--verbose'], { env, cwd: dir, timeout: 60_000 });
      expect(r.exitCode, String(r.stderr)).toBe(0);
      const statuses = [...String(r.stderr).matchAll(/ -> (\d+) in /g)].map((m) => Number(m[1]));
      expect(statuses.length, api).toBeGreaterThanOrEqual(4);
      expect(statuses.filter((s) => s !== 200), api).toEqual([]);
    }
  }, 60_000);
});
