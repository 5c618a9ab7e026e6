// Reliability, bad CLI input: every command's flags and arguments with bad values, through the
// CLI's entry point (in process, for speed) and, one case per command and exit code, as a real
// process of the built CLI. Each must print one line on stderr (plus at most a hint line), no stack trace,
// nothing on stdout, and exit with the documented code (src/errors.ts: 2 usage, 3 auth,
// 4 window, 6 not found, 7 unreachable).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliContext } from '../src/cli/context.js';
import { runMain } from '../src/cli/main.js';
import { EXIT } from '../src/errors.js';
import { buildIfStale, CLEAN_ENV, createKey, msnap, seed, startServe, type Served } from './support/msnap-process.js';

let dir: string;
let db: string;
let served: Served;
let closedPort: number;
const keys = { pro: '', builder: '' };
let outsideWindow = '';
let unknownMarket = '';

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-rel-cli-'));
  db = path.join(dir, 'cli.db');
  // 16 days: more than builder's 14 24hr markets, so the oldest is outside its window (exit 4).
  await seed(db, ['--days', '16', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '0']);
  keys.pro = await createKey(db, 'cli-pro', 'pro');
  keys.builder = await createKey(db, 'cli-builder', 'builder');
  served = await startServe(db);
  const res = await fetch(`${served.url}/api/v1/markets?coin=btc&market_type=24hr&limit=1&offset=15`, { headers: { 'X-API-Key': keys.pro } });
  outsideWindow = ((await res.json()) as { markets: { market_id: string }[] }).markets[0]!.market_id;
  unknownMarket = 'btc-updown-5m-1000000200';
  // One line longer than the line cap (issue 30: a 540 MB line once took 107 s and 3.2 GB).
  writeFileSync(path.join(dir, 'long.ndjson'), `{"market_id":"btc-updown-5m-1763769600","pad":"${'x'.repeat(17 * 2 ** 20)}"}\n`);
  writeFileSync(path.join(dir, 'bad.ndjson'), '{"market_id":"btc-updown-5m-1763769600","time":1763769600125,"price":1,"price_up":0.5,"price_down":0.5}\n{not json\n');
  writeFileSync(path.join(dir, 'bad.csv'), 'id,market_id,time,price,price_up,price_down\n1,btc-updown-5m-1763769600,banana,1,0.5,0.5\n');
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
}, 90_000);

afterAll(async () => {
  const stopped = await served?.stop();
  expect(stopped?.exitCode).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

type Case = [name: string, args: () => string[], code: number, env?: () => Record<string, string | undefined>];

const USAGE = EXIT.usage;
const dbArgs = () => ['--db', db];

/** Every flag and argument of every command, each with values it must refuse. */
const CASES: Case[] = [
  // global options (on a query command)
  ['--format xml', () => ['markets', '--format', 'xml'], USAGE],
  ['--auth-scheme basic', () => ['markets', '--auth-scheme', 'basic'], USAGE],
  ['--base-url not a URL', () => ['markets', '--base-url', 'not a url'], USAGE],
  ['--base-url ftp://', () => ['health', '--base-url', 'ftp://127.0.0.1/'], USAGE],
  ['--base-url empty', () => ['limits', '--base-url', ''], USAGE],
  ['MSNAP_BASE_URL not a URL', () => ['health'], USAGE, () => ({ MSNAP_BASE_URL: '::nope::' })],
  ['--api-key without a value', () => ['markets', '--api-key'], USAGE],
  ['-o without a value', () => ['markets', '-o'], USAGE],
  ['-o into a missing directory', () => ['markets', '--limit', '1', '-o', path.join(dir, 'no/such/dir/out.csv')], USAGE],
  ['unknown global option', () => ['--colour', 'markets'], USAGE],
  ['unknown command', () => ['marketz'], USAGE],
  // markets
  ['markets --coin XRP (coming soon)', () => ['markets', '--coin', 'XRP'], USAGE],
  ['markets --coin unknown', () => ['markets', '--coin', 'dogecoin2'], USAGE],
  ['markets --coin empty', () => ['markets', '--coin', ''], USAGE],
  ['markets --coin SQL', () => ['markets', '--coin', "btc' OR 1=1--"], USAGE],
  ['markets --type 7m', () => ['markets', '--type', '7m'], USAGE],
  ['markets --type empty', () => ['markets', '--type', ''], USAGE],
  ['markets --status pending', () => ['markets', '--status', 'pending'], USAGE],
  ['markets --limit -5', () => ['markets', '--limit', '-5'], USAGE],
  ['markets --limit 1.5', () => ['markets', '--limit', '1.5'], USAGE],
  ['markets --limit abc', () => ['markets', '--limit', 'abc'], USAGE],
  ['markets --limit 1e3', () => ['markets', '--limit', '1e3'], USAGE],
  ['markets --limit huge', () => ['markets', '--limit', '99999999999999999999999'], USAGE],
  ['markets --limit NaN', () => ['markets', '--limit', 'NaN'], USAGE],
  ['markets --offset -1', () => ['markets', '--offset', '-1'], USAGE],
  ['markets --offset x', () => ['markets', '--offset', 'x'], USAGE],
  ['markets --from yesterday', () => ['markets', '--from', 'yesterday'], USAGE],
  ['markets --to garbage', () => ['markets', '--to', '2025-13-45T99:99:99Z'], USAGE],
  ['markets --from after --to', () => ['markets', '--from', '1h', '--to', '2h'], USAGE],
  ['markets extra argument', () => ['markets', 'BTC'], USAGE],
  // snapshots
  ['snapshots without arguments', () => ['snapshots'], USAGE],
  ['snapshots not a market id', () => ['snapshots', 'not-a-market'], USAGE],
  ['snapshots path traversal id', () => ['snapshots', '../../etc/passwd'], USAGE],
  ['snapshots unknown coin', () => ['snapshots', 'FOO', '5m'], USAGE],
  ['snapshots unknown type', () => ['snapshots', 'BTC', '7m'], USAGE],
  ['snapshots --last 0', () => ['snapshots', 'BTC', '5m', '--last', '0'], USAGE],
  ['snapshots --last -1', () => ['snapshots', 'BTC', '5m', '--last', '-1'], USAGE],
  ['snapshots --last x', () => ['snapshots', 'BTC', '5m', '--last', 'x'], USAGE],
  ['snapshots --last with a market id', () => ['snapshots', 'btc-updown-5m-1763769600', '--last', '2'], USAGE],
  ['snapshots --from bad', () => ['snapshots', 'BTC', '5m', '--from', 'soon'], USAGE],
  ['snapshots --to bad', () => ['snapshots', 'BTC', '5m', '--to', '-'], USAGE],
  ['snapshots --from after --to', () => ['snapshots', 'BTC', '5m', '--from', '2025-11-22T01:00:00Z', '--to', '2025-11-22T00:00:00Z'], USAGE],
  ['snapshots --orderbook with a value', () => ['snapshots', 'BTC', '5m', '--orderbook', 'yes', 'extra'], USAGE],
  ['snapshots too many arguments', () => ['snapshots', 'BTC', '5m', 'extra'], USAGE],
  ['snapshots unknown market', () => ['snapshots', unknownMarket], EXIT.notFound],
  ['snapshots outside the builder window', () => ['snapshots', outsideWindow], EXIT.window, () => ({ MSNAP_API_KEY: keys.builder })],
  // at
  ['at without arguments', () => ['at'], USAGE],
  ['at with a coin only', () => ['at', 'BTC'], USAGE],
  ['at bad type', () => ['at', 'BTC', '7m', 'now'], USAGE],
  ['at bad time', () => ['at', 'BTC', '5m', 'whenever'], USAGE],
  ['at bad time for a market id', () => ['at', 'btc-updown-5m-1763769600', 'noon'], USAGE],
  ['at not a market id', () => ['at', 'nope', '1763769600000'], USAGE],
  ['at coin and type without a time', () => ['at', 'BTC', '5m'], USAGE],
  ['at unknown market', () => ['at', unknownMarket, '1000000300000'], EXIT.notFound],
  // analyst outputs: Parquet, bars, batch at, quality, chart, completion
  ['--compression zip', () => ['snapshots', 'BTC', '5m', '-o', path.join(dir, 'x.parquet'), '--compression', 'zip'], USAGE],
  ['--compression with CSV', () => ['snapshots', 'BTC', '5m', '--csv', '--compression', 'gzip'], USAGE],
  ['snapshots --resample 2m', () => ['snapshots', 'BTC', '5m', '--resample', '2m'], USAGE],
  ['snapshots --fill without --resample', () => ['snapshots', 'BTC', '5m', '--fill'], USAGE],
  ['snapshots --resample with --orderbook-columns', () => ['snapshots', 'BTC', '5m', '--resample', '1m', '--orderbook-columns'], USAGE],
  ['at --times missing file', () => ['at', 'BTC', '5m', '--times', path.join(dir, 'no-such-times.txt')], USAGE],
  ['at --times with a time argument', () => ['at', 'BTC', '5m', 'now', '--times', '-'], USAGE],
  ['at --times bad market', () => ['at', 'nope', '--times', '-'], USAGE],
  ['quality bad type', () => ['quality', 'BTC', '7m'], USAGE],
  ['quality --sum-tolerance x', () => ['quality', 'BTC', '5m', '--sum-tolerance', 'x'], USAGE],
  ['quality --last with a market id', () => ['quality', 'btc-updown-5m-1763769600', '--last', '2'], USAGE],
  ['quality unknown market', () => ['quality', unknownMarket], EXIT.notFound],
  ['chart --width 5', () => ['chart', 'BTC', '5m', '--width', '5'], USAGE],
  ['chart --height x', () => ['chart', 'BTC', '5m', '--height', 'x'], USAGE],
  ['chart with --csv', () => ['chart', 'BTC', '5m', '--csv'], USAGE],
  ['chart not a market id', () => ['chart', 'nope'], USAGE],
  ['completion tcsh', () => ['completion', 'tcsh'], USAGE],
  ['completion without a shell', () => ['completion'], USAGE],
  // limits / health
  ['limits extra argument', () => ['limits', 'now'], USAGE],
  ['limits without a key', () => ['limits'], EXIT.auth, () => ({ MSNAP_API_KEY: undefined })],
  ['limits wrong key', () => ['limits'], EXIT.auth, () => ({ MSNAP_API_KEY: 'msk_wrong0000000000000000000000000000000000' })],
  ['limits --api-key wrong', () => ['limits', '--api-key', 'nope'], EXIT.auth],
  ['health extra argument', () => ['health', 'now'], USAGE],
  ['health nothing listening', () => ['health'], EXIT.unreachable, () => ({ MSNAP_BASE_URL: `http://127.0.0.1:${closedPort}` })],
  ['markets nothing listening', () => ['markets', '--limit', '1'], EXIT.unreachable, () => ({ MSNAP_BASE_URL: `http://127.0.0.1:${closedPort}` })],
  // keys (client store)
  ['keys without a subcommand argument', () => ['keys', 'add'], USAGE],
  ['keys add bad name', () => ['keys', 'add', 'bad name!', 'msk_x'], USAGE],
  ['keys add dotted name', () => ['keys', 'add', 'a.b', 'msk_x'], USAGE],
  ['keys add too long a name', () => ['keys', 'add', 'n'.repeat(65), 'msk_x'], USAGE],
  ['keys add --base-url bad', () => ['keys', 'add', 'ok', 'msk_x', '--base-url', 'nope'], USAGE],
  ['keys use unknown', () => ['keys', 'use', 'never-added'], USAGE],
  ['keys remove unknown', () => ['keys', 'remove', 'never-added'], USAGE],
  ['keys use bad name', () => ['keys', 'use', '../x'], USAGE],
  ['keys unknown subcommand', () => ['keys', 'rotate'], USAGE],
  // serve
  ['serve --port abc', () => ['serve', ...dbArgs(), '--port', 'abc'], USAGE],
  ['serve --port 70000', () => ['serve', ...dbArgs(), '--port', '70000'], USAGE],
  ['serve --port -1', () => ['serve', ...dbArgs(), '--port', '-1'], USAGE],
  ['serve --port 1.5', () => ['serve', ...dbArgs(), '--port', '1.5'], USAGE],
  ['serve --port in use', () => ['serve', ...dbArgs(), '--port', String(served.port)], USAGE],
  ['serve --host bad', () => ['serve', ...dbArgs(), '--port', '0', '--host', 'bad host!'], USAGE],
  ['serve --host not local', () => ['serve', ...dbArgs(), '--port', '0', '--host', '203.0.113.7'], USAGE],
  ['serve --db in a missing directory', () => ['serve', '--db', path.join(dir, 'no/such/x.db'), '--port', '0'], USAGE],
  ['serve --db is a directory', () => ['serve', '--db', dir, '--port', '0'], USAGE],
  ['serve unknown option', () => ['serve', '--prot', '0'], USAGE],
  // serve seed
  ['serve seed --days 0', () => ['serve', 'seed', '--db', path.join(dir, 'new1.db'), '--days', '0'], USAGE],
  ['serve seed --days x', () => ['serve', 'seed', '--db', path.join(dir, 'new2.db'), '--days', 'x'], USAGE],
  ['serve seed --days huge', () => ['serve', 'seed', '--db', path.join(dir, 'new3.db'), '--days', '99999999'], USAGE],
  ['serve seed --seed -1', () => ['serve', 'seed', '--db', path.join(dir, 'new4.db'), '--seed', '-1'], USAGE],
  ['serve seed --full bogus', () => ['serve', 'seed', '--db', path.join(dir, 'new5.db'), '--full', 'bogus'], USAGE],
  ['serve seed --full 5m=x', () => ['serve', 'seed', '--db', path.join(dir, 'new6.db'), '--full', '5m=x'], USAGE],
  ['serve seed --full 7m=1', () => ['serve', 'seed', '--db', path.join(dir, 'new7.db'), '--full', '7m=1'], USAGE],
  ['serve seed --orderbook-minutes -1', () => ['serve', 'seed', '--db', path.join(dir, 'new8.db'), '--orderbook-minutes', '-1'], USAGE],
  ['serve seed into a seeded database', () => ['serve', 'seed', ...dbArgs(), '--days', '1'], USAGE],
  ['serve seed --db in a missing directory', () => ['serve', 'seed', '--db', path.join(dir, 'no/such/x.db'), '--days', '1'], USAGE],
  // serve import (each import its own database: in one process, an import holding the write lock
  // across awaits would block a second one's synchronous busy wait until it times out)
  ['serve import without a file', () => ['serve', 'import', ...dbArgs()], USAGE],
  ['serve import a missing file', () => ['serve', 'import', path.join(dir, 'missing.ndjson'), ...dbArgs()], USAGE],
  ['serve import a missing file as --format parquet', () => ['serve', 'import', path.join(dir, 'missing.parquet'), '--format', 'parquet', ...dbArgs()], USAGE],
  ['serve import --format xml', () => ['serve', 'import', path.join(dir, 'bad.ndjson'), '--format', 'xml', ...dbArgs()], USAGE],
  ['serve import a bad NDJSON line', () => ['serve', 'import', path.join(dir, 'bad.ndjson'), '--db', path.join(dir, 'imp-ndjson.db')], USAGE],
  ['serve import a line over the cap', () => ['serve', 'import', path.join(dir, 'long.ndjson'), '--db', path.join(dir, 'imp-long.db')], USAGE],
  ['serve import a bad CSV row', () => ['serve', 'import', path.join(dir, 'bad.csv'), '--db', path.join(dir, 'imp-csv.db')], USAGE],
  ['serve import a directory', () => ['serve', 'import', dir, ...dbArgs()], USAGE],
  // serve keys
  ['serve keys create without --account', () => ['serve', 'keys', 'create', '--plan', 'pro', ...dbArgs()], USAGE],
  ['serve keys create --plan gold', () => ['serve', 'keys', 'create', '--account', 'g', '--plan', 'gold', ...dbArgs()], USAGE],
  ['serve keys create new account without a plan', () => ['serve', 'keys', 'create', '--account', 'nobody-yet', ...dbArgs()], USAGE],
  ['serve keys create --rpm 0', () => ['serve', 'keys', 'create', '--account', 'e1', '--plan', 'enterprise', '--rpm', '0', '--burst', '5', ...dbArgs()], USAGE],
  ['serve keys create --rpm x', () => ['serve', 'keys', 'create', '--account', 'e2', '--plan', 'enterprise', '--rpm', 'x', '--burst', '5', ...dbArgs()], USAGE],
  ['serve keys create --burst -1', () => ['serve', 'keys', 'create', '--account', 'e3', '--plan', 'enterprise', '--rpm', '5', '--burst', '-1', ...dbArgs()], USAGE],
  ['serve keys create --burst 1.5', () => ['serve', 'keys', 'create', '--account', 'e4', '--plan', 'enterprise', '--rpm', '5', '--burst', '1.5', ...dbArgs()], USAGE],
  ['serve keys create --account empty', () => ['serve', 'keys', 'create', '--account', '', '--plan', 'pro', ...dbArgs()], USAGE],
  ['serve keys revoke abc', () => ['serve', 'keys', 'revoke', 'abc', ...dbArgs()], USAGE],
  ['serve keys revoke -1', () => ['serve', 'keys', 'revoke', '-1', ...dbArgs()], USAGE],
  ['serve keys revoke unknown id', () => ['serve', 'keys', 'revoke', '99999', ...dbArgs()], EXIT.notFound],
  ['serve keys list extra argument', () => ['serve', 'keys', 'list', 'all', ...dbArgs()], USAGE],
  ['serve keys unknown subcommand', () => ['serve', 'keys', 'rotate', ...dbArgs()], USAGE],
];

/** Cases also run as real processes (one per command and per exit code): process-level failures show only there. */
const AS_PROCESS = new Set([
  '--format xml', 'unknown command', 'markets --limit -5', 'snapshots unknown coin', 'snapshots unknown market',
  'snapshots outside the builder window', 'at bad time', 'limits wrong key', 'health nothing listening', 'keys add bad name',
  'serve --port abc', 'serve --port in use', 'serve seed --full bogus', 'serve import a bad NDJSON line',
  'serve keys create --plan gold', 'serve keys revoke unknown id',
]);

interface Ran {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs the CLI's entry point in this process with captured streams: the same code as bin/msnap.js, without a node start per case. */
async function inProcess(argv: string[], env: Record<string, string | undefined>): Promise<Ran> {
  const out = { stdout: '', stderr: '' };
  const sink = (which: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer | string, _enc, done) {
        out[which] += chunk.toString();
        done();
      },
    });
  const ctx: CliContext = {
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    stdin: Readable.from([]),
    env: Object.fromEntries(Object.entries({ ...CLEAN_ENV, ...env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv,
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    pid: process.pid,
  };
  const exitCode = await runMain(argv, ctx);
  return { exitCode, ...out };
}

function expectOneLineError(r: Ran, code: number): void {
  const err = r.stderr.split('\n').filter((l) => l !== '');
  const where = `exit ${r.exitCode}, stderr: ${r.stderr}`;
  expect(r.exitCode, where).toBe(code);
  expect(err.length, where).toBeGreaterThanOrEqual(1);
  expect(err.length, where).toBeLessThanOrEqual(2);
  expect(err[0], where).toMatch(/^(msnap: |error: )/);
  // The optional second line is a hint: ours ("hint: ...") or commander's pointer to --help.
  if (err[1] !== undefined) expect(err[1], where).toMatch(/^(hint: |\(run with --help for usage\))/);
  expect(r.stderr, where).not.toMatch(/^\s+at /m);
  expect(r.stderr, where).not.toMatch(/unexpected error/);
  expect(r.stdout, where).toBe('');
}

function caseEnv(env: Case[3]): Record<string, string | undefined> {
  return { MSNAP_CONFIG_DIR: mkdtempSync(path.join(dir, 'config-')), MSNAP_BASE_URL: served.url, MSNAP_API_KEY: keys.pro, ...env?.() };
}

describe('bad CLI input: one line on stderr, the documented exit code, no stack trace', () => {
  it('covers every command with a real process case', () => {
    const names = new Set(CASES.map(([name]) => name));
    for (const name of AS_PROCESS) expect(names.has(name), name).toBe(true);
  });

  it.concurrent.each(CASES)('%s', async (_name, args, code, env) => {
    expectOneLineError(await inProcess(args(), caseEnv(env)), code);
  });

  it.concurrent.each(CASES.filter(([name]) => AS_PROCESS.has(name)))('built CLI process: %s', async (_name, args, code, env) => {
    const r = await msnap(args(), { cwd: dir, env: caseEnv(env) });
    expectOneLineError({ exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) }, code);
  });
});
