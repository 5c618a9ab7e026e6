// End to end: the built `msnap watch` against the built `msnap serve --replay FROM --speed 600`
// over a seeded file (a 5m market passes in half a second). Polling prints exactly the rows the
// snapshots page gives for the market, in order, each once, and exits 0 when it resolves;
// --follow crosses into the next markets; the live stream gives the same rows as polling; a
// static server (no stream) is polled without a word; bad arguments are one line and exit 2.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, msnap, seed, spawnMsnap, startServe, type Served } from './support/msnap-process.js';
import { openStream } from './support/stream-client.js';
import { until } from './support/until.js';

const FIVE_MIN = 300_000;
let dir: string;
let db: string;
let key: string;
let from: number;
let servers: Served[] = [];

interface Row {
  id: number;
  market_id: string;
  time: number;
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-watch-e2e-'));
  db = path.join(dir, 'watch.db');
  // The newest 12 BTC 5m markets have every snapshot; the replay starts inside the 10th newest (4.5 s of
  // wall time before the newest, partial market, which never resolves: room for a slow start).
  await seed(db, ['--days', '1', '--full', '5m=12,15m=0,1hr=0,4hr=0,24hr=0']);
  key = await createKey(db, 'bot', 'builder');
  from = Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN - 9 * FIVE_MIN - 20_000;
}, 180_000);

afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function replay(): Promise<Served> {
  const s = await startServe(db, { args: ['--replay', String(from), '--speed', '600'] });
  servers.push(s);
  return s;
}

const conn = (s: Served): string[] => ['--base-url', s.url, '--api-key', key];

function rows(ndjson: string): Row[] {
  return ndjson.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Row);
}

function idsOf(list: Row[]): string[] {
  return [...new Set(list.map((r) => r.market_id))];
}

/** The market's snapshots page as `msnap snapshots` exports it (NDJSON lines). */
async function page(s: Served, id: string): Promise<string[]> {
  const r = await msnap(['snapshots', id, '--ndjson', ...conn(s)]);
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.split('\n').filter((l) => l !== '');
}

function linesOf(out: string, id: string): string[] {
  return out.split('\n').filter((l) => l !== '' && (JSON.parse(l) as Row).market_id === id);
}

/** `watch --follow` until rows of `markets` markets have arrived, then Ctrl-C; its stdout and exit. */
async function followFor(args: string[], markets: number): Promise<{ out: string; err: string; exitCode: number | undefined }> {
  const proc = spawnMsnap(['watch', ...args], { all: false });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  await until(() => idsOf(rows(out.slice(0, out.lastIndexOf('\n') + 1))).length >= markets || proc.exitCode !== null, `${markets} markets watched`, 30_000);
  proc.kill('SIGINT');
  const r = await proc;
  return { out, err, exitCode: r.exitCode };
}

describe('msnap watch (polling)', () => {
  it("prints exactly the market's snapshots page, in order, each once, and exits 0 when it resolves", async () => {
    const s = await replay();
    const r = await msnap(['watch', 'BTC', '5m', '--poll', '--ndjson', ...conn(s)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const got = rows(r.stdout);
    const ids = idsOf(got);
    expect(ids).toHaveLength(1);
    expect(new Set(got.map((x) => x.id)).size).toBe(got.length);
    expect(r.stdout.split('\n')).toEqual(await page(s, ids[0]!));
    expect(got.length).toBe(2400);
    expect(r.stderr).toMatch(new RegExp(`^msnap: watching ${ids[0]} \\(polling\\)`));
    expect(r.stderr).toMatch(/msnap: 2,400 snapshots of 1 market written to stdout/);
  }, 60_000);

  it('--follow crosses into the next markets of the series, each after the one before; Ctrl-C ends with exit 0', async () => {
    const s = await replay();
    const { out, err, exitCode } = await followFor(['BTC', '5m', '--poll', '--follow', '--ndjson', ...conn(s)], 3);
    expect(exitCode, err).toBe(0);
    expect(out.endsWith('\n')).toBe(true);
    const got = rows(out);
    const ids = idsOf(got);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    // Consecutive markets, never interleaved: each market's rows form one run.
    const starts = ids.map((id) => Number(id.split('-').at(-1)) * 1000);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBe(FIVE_MIN);
    expect(ids.join()).toBe(got.map((x) => x.market_id).filter((id, i, a) => i === 0 || a[i - 1] !== id).join());
    // Every market but the last is complete and exactly its page; the last one is its page's start.
    for (const id of ids.slice(0, -1)) expect(linesOf(out, id)).toEqual(await page(s, id));
    const last = ids.at(-1)!;
    const lastLines = linesOf(out, last);
    expect((await page(s, last)).slice(0, lastLines.length)).toEqual(lastLines);
    expect(err).toMatch(/snapshots of \d markets written to stdout/);
  }, 60_000);

  it('Ctrl-C with -o FILE.json: the file is written whole (a closed array), no temp file left', async () => {
    const s = await replay();
    const file = path.join(dir, 'watch.json');
    // Polling with --follow: the replay runs on well past three markets, so Ctrl-C is what ends it.
    const proc = spawnMsnap(['watch', 'BTC', '5m', '--poll', '--follow', '-o', file, ...conn(s)], { all: false });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    await until(() => (err.match(/msnap: watching /g) ?? []).length >= 3 || proc.exitCode !== null, 'a third market watched', 30_000);
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode, err).toBe(0);
    const got = JSON.parse(readFileSync(file, 'utf8')) as Row[];
    const ids = idsOf(got);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const first = (await page(s, ids[0]!)).map((l) => (JSON.parse(l) as Row).id);
    expect(got.filter((x) => x.market_id === ids[0]).map((x) => x.id)).toEqual(first);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(err).toMatch(new RegExp(`snapshots of \\d+ markets written to ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  }, 60_000);

  it('--stream where the server has none: one line, exit 6', async () => {
    const s = await startServe(db);
    servers.push(s);
    // A seeded market that has ended (COIN TYPE would find no active market once the wall clock
    // passes a 5-minute boundary after the seed: a different exit-6 line).
    const id = `btc-updown-5m-${(Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN - 2 * FIVE_MIN) / 1000}`;
    const r = await msnap(['watch', id, '--stream', ...conn(s)]);
    expect(r.exitCode).toBe(6);
    expect(r.stderr.split('\n')[0]).toBe('msnap: no live stream: the service offers no stream');
    expect(r.stdout).toBe('');
  }, 60_000);

  it('a static server has no stream: the watch polls without a word', async () => {
    const s = await startServe(db);
    servers.push(s);
    const id = `btc-updown-5m-${(Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN - 2 * FIVE_MIN) / 1000}`;
    const r = await msnap(['watch', id, '--csv', ...conn(s)]);
    expect(r.exitCode, r.stderr).toBe(0);
    const csv = await msnap(['snapshots', id, '--csv', ...conn(s)]);
    expect(r.stdout).toBe(csv.stdout);
    expect(r.stderr.split('\n')[0]).toBe(`msnap: watching ${id} (polling), ends ${new Date(Number(id.split('-').at(-1)) * 1000 + FIVE_MIN).toISOString()}`);
    expect(r.stderr).not.toMatch(/stream/);
  }, 60_000);
});

describe('msnap watch: a wait that cannot end by itself is said', () => {
  it('--follow on a static server: a note that the data is static, then the wait (Ctrl-C: exit 0)', async () => {
    const s = await startServe(db);
    servers.push(s);
    // A market yet to open: the watch waits for it, and nothing will ever come on a static store.
    const start = Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN + 2 * FIVE_MIN;
    const proc = spawnMsnap(['watch', `btc-updown-5m-${start / 1000}`, '--follow', '--ndjson', ...conn(s)], { all: false });
    let err = '';
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    await until(() => /static/.test(err) || proc.exitCode !== null, 'the static note', 30_000);
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode, err).toBe(0);
    expect(err).toContain(
      `msnap: note: no BTC 5m market after ${new Date(start).toISOString()} yet, and this msnap serve's data is static (no --live or --replay): ` +
        'one comes only if a recorder writes to its store; waiting (Ctrl-C ends the watch)',
    );
  }, 60_000);

  it('a polled market after the replay has ended: its rows so far, then a note and exit 0', async () => {
    const market = Math.floor(Date.now() / FIVE_MIN) * FIVE_MIN - 9 * FIVE_MIN;
    // The replay stops 40 s into the market, a tenth of a second after it starts.
    const s = await startServe(db, { args: ['--replay', String(market + 10_000), '--until', String(market + 40_000), '--speed', '300'] });
    servers.push(s);
    for (const args of [['BTC', '5m', '--poll'], [`btc-updown-5m-${market / 1000}`, '--poll', '--follow']]) {
      const r = await msnap(['watch', ...args, '--ndjson', ...conn(s)], { timeout: 30_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('msnap: note: the replay has ended: no more snapshots will come');
      const page40 = await page(s, `btc-updown-5m-${market / 1000}`);
      // Everything up to where the clock stopped (40 s of the 8-a-second grid), nothing after.
      expect(page40.length).toBeGreaterThanOrEqual(40 * 8);
      expect((JSON.parse(page40.at(-1)!) as Row).time).toBeLessThanOrEqual(market + 40_000);
      expect(r.stdout.split('\n')).toEqual(page40);
    }
  }, 60_000);
});

describe('msnap watch (live stream)', () => {
  it('gives the same rows as polling, market after market, and ends with the replay', async () => {
    const s = await replay();
    const r = await msnap(['watch', 'BTC', '5m', '--stream', '--follow', '--ndjson', ...conn(s)]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(live stream\)/);
    expect(r.stderr).toMatch(/msnap: note: the replay has ended/);
    const ids = idsOf(rows(r.stdout));
    expect(ids.length).toBeGreaterThanOrEqual(4);
    const rest: string[] = [];
    for (const id of ids) rest.push(...(await page(s, id)));
    expect(r.stdout.split('\n')).toEqual(rest);
    // Polling one of those markets (resolved now) prints the very same lines.
    const polled = await msnap(['watch', ids[1]!, '--poll', '--ndjson', ...conn(s)]);
    expect(polled.exitCode, polled.stderr).toBe(0);
    expect(polled.stdout.split('\n')).toEqual(linesOf(r.stdout, ids[1]!));
  }, 60_000);

  it("falls back to polling with one note when the key's streams are all in use (4008)", async () => {
    const s = await replay();
    // A builder key may hold 2 streams.
    const held = [openStream(s.url, { token: key }), openStream(s.url, { token: key })];
    await Promise.all(held.map((h) => h.opened));
    const r = await msnap(['watch', 'BTC', '5m', '--ndjson', ...conn(s)]);
    for (const h of held) h.ws.close();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.match(/msnap: note: no live stream \(the key's streams are all in use \(4008\)\); polling instead/g)).toHaveLength(1);
    const ids = idsOf(rows(r.stdout));
    expect(ids).toHaveLength(1);
    expect(r.stdout.split('\n')).toEqual(await page(s, ids[0]!));
  }, 60_000);
});

describe('msnap watch: bad arguments', () => {
  it.each([
    [['BTC', '5x'], /^msnap: unknown market type '5x'/],
    [['XRP', '5m'], /^msnap: XRP is coming soon/],
    [['DOGEY', '5m'], /^msnap: unknown coin 'DOGEY'/],
    [['btc-updown-5m-abc'], /^msnap: 'btc-updown-5m-abc' is not a market id/],
    [['BTC'], /^msnap: 'BTC' needs a market type after it/],
    [['BTC', '5m', '--stream', '--poll'], /^msnap: --stream and --poll exclude each other/],
    [['BTC', '5m', '--interval', '10ms'], /^msnap: --interval must be from 1s to 60m/],
  ])('watch %j: one line, exit 2', async (args, message) => {
    const r = await msnap(['watch', ...args, '--base-url', 'http://127.0.0.1:1', '--api-key', 'msk_x']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
