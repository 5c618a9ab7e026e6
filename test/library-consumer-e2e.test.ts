// A TypeScript project that installs the packed tarball and uses all three entry points: it must
// type-check with `tsc --strict` against the shipped declarations (and fail on a misuse), then run
// against a `serve` it starts through msnap/server; its results are compared with the CLI's. A
// backtest over the service runs with better-sqlite3 unloadable, as where it was never built.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { installTarball, packFreshTree, repoVersion } from './support/packed-package.js';
import { buildIfStale, createKey, msnap, ROOT, seed, startServe } from './support/msnap-process.js';
import { CHEAP_UP_RULE } from './support/cheap-up-rule.js';

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], outDir: 'out' },
});

// Seeds a store, makes a key, serves it, and reads it through the client and the store.
const CONSUMER = `
import { createClient, EXIT, MsnapError, NotFoundError, UsageError, type Market, type Snapshot } from 'msnap';
import { openStore } from 'msnap/store';
import { createKey, seedStore, startServer } from 'msnap/server';

const db: string = process.argv[2]!;
const seeded = await seedStore(db, { days: 1 });
const key: string = await createKey(db, { account: 'bot', plan: 'pro' });
const server = await startServer({ store: db, port: 0 });
const client = createClient({ baseUrl: server.url, apiKey: key, paceStateDir: false });
try {
  const markets: Market[] = [];
  for await (const m of client.markets({ coin: 'BTC', marketType: '5m', limit: 5 })) markets.push(m);
  const remote: Snapshot[] = [];
  for await (const s of client.snapshots({ coin: 'BTC', type: '5m', last: 1 })) remote.push(s);
  const local: Snapshot[] = [];
  const store = await openStore(db);
  for await (const s of store.snapshots(remote[0]!.market_id)) local.push(s);
  await store.close();
  const at = await client.at(remote[0]!.market_id, remote[1]!.time + 1);
  let notFound = 0;
  try {
    await client.market('btc-updown-5m-1000000200');
  } catch (err) {
    if (err instanceof NotFoundError && err instanceof MsnapError) notFound = err.exitCode;
  }
  let usage = '';
  try {
    createClient({ baseUrl: 'ftp://nowhere', apiKey: key });
  } catch (err) {
    if (err instanceof UsageError) usage = err.message;
  }
  const limits = await client.limits();
  console.log(JSON.stringify({ seeded, markets, remote, local, at, notFound, notFoundCode: EXIT.notFound, usage, plan: limits.plan }));
} finally {
  await client.close();
  await server.close();
}
`;

// A misuse the declarations must catch (a field Limits does not have).
const MISUSE = `
import { createClient } from 'msnap';
const limits = await createClient({ apiKey: 'k' }).limits();
const plan: string = limits.plan_name;
console.log(plan);
`;

// A backtest over the service through msnap and msnap/backtest: argv URL, key, strategy JSON.
const SERVICE_BACKTEST = `
import { createClient } from 'msnap';
import { apiMarketSource, runBacktest } from 'msnap/backtest';
const [url, key, rule] = process.argv.slice(2);
const client = createClient({ baseUrl: url, apiKey: key, paceStateDir: false });
try {
  const markets = await client.select({ coin: 'BTC', type: '5m', last: 1 });
  const result = await runBacktest(JSON.parse(rule), apiMarketSource(client.core, markets));
  console.log(JSON.stringify({ markets: markets.length, trades: result.trades.length }));
} finally {
  await client.close();
}
`;

// Loaded with --import: any import of better-sqlite3 fails, as in a project whose native build failed.
const NO_SQLITE = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === 'better-sqlite3') throw Object.assign(new Error('better-sqlite3 is not built here'), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}\`));
`;

interface Result {
  seeded: { markets: number; snapshots: number };
  markets: { market_id: string; snapshot_count: number }[];
  remote: { market_id: string; time: number }[];
  local: unknown[];
  at: { market_id: string };
  notFound: number;
  notFoundCode: number;
  usage: string;
  plan: string;
}

let project: string;
const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');

beforeAll(async () => {
  await buildIfStale();
  const packed = await packFreshTree();
  project = await installTarball(packed.tarball, {
    files: { 'tsconfig.json': TSCONFIG, 'src/consumer.ts': CONSUMER, 'service-backtest.mjs': SERVICE_BACKTEST, 'no-sqlite.mjs': NO_SQLITE },
    packages: [`@types/node@${repoVersion('@types/node')}`],
  });
}, 600_000);

describe('a TypeScript consumer of the packed package', () => {
  it('type-checks with --strict against the shipped declarations', async () => {
    const r = await execa('node', [tsc, '-p', 'tsconfig.json'], { cwd: project, reject: false });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
  }, 120_000);

  it('is refused by the compiler when it misuses a type', async () => {
    // Outside src/, so the consumer project itself compiles clean.
    const dir = mkdtempSync(path.join(project, 'misuse-'));
    writeFileSync(path.join(dir, 'misuse.ts'), MISUSE);
    const flags = ['--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--noEmit'];
    const r = await execa('node', [tsc, ...flags, 'misuse.ts'], { cwd: dir, reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toMatch(/misuse\.ts\(4,\d+\): error TS2339: Property 'plan_name' does not exist/);
  }, 120_000);

  it('runs against a serve it started, and reads what the CLI reads', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'msnap-consumer-db-'));
    const db = path.join(dir, 'store.db');
    const run = await execa('node', ['out/consumer.js', db], { cwd: project, reject: false });
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    const r = JSON.parse(run.stdout) as Result;
    expect(r.seeded.snapshots).toBeGreaterThan(0);
    expect(r.plan).toBe('pro');
    expect(r.markets.length).toBe(5);

    // The selection and the rows are the CLI's for `snapshots BTC 5m` over the same store.
    const cli = await msnap(['snapshots', 'BTC', '5m', '--db', db, '--ndjson'], { cwd: dir });
    expect(cli.exitCode, cli.stderr).toBe(0);
    const rows = cli.stdout.split('\n').map((l) => JSON.parse(l) as unknown);
    expect(r.remote).toEqual(rows);
    expect(r.local).toEqual(rows);

    const at = await msnap(['at', r.at.market_id, String(r.remote[1]!.time + 1), '--db', db, '--ndjson'], { cwd: dir });
    expect(at.exitCode, at.stderr).toBe(0);
    expect(JSON.parse(at.stdout)).toEqual(r.at);

    expect(r.notFound).toBe(r.notFoundCode);
    expect(r.notFoundCode).toBe(6);
    expect(r.usage).toMatch(/http:\/\/ or https:\/\//);
  }, 120_000);

  it('backtests over the service with better-sqlite3 unloadable (msnap/backtest loads no store driver)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'msnap-consumer-bt-'));
    const db = path.join(dir, 'store.db');
    await seed(db);
    const key = await createKey(db, 'bot', 'pro');
    const served = await startServe(db);
    try {
      const guard = await execa('node', ['--import', './no-sqlite.mjs', '--input-type=module', '-e', "await import('better-sqlite3')"], { cwd: project, reject: false });
      expect(guard.stderr).toMatch(/better-sqlite3 is not built here/);
      const run = await execa('node', ['--import', './no-sqlite.mjs', 'service-backtest.mjs', served.url, key, JSON.stringify(CHEAP_UP_RULE)], { cwd: project, reject: false });
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(0);
      const r = JSON.parse(run.stdout) as { markets: number; trades: number };
      expect(r.markets).toBe(1);
      expect(r.trades).toBeGreaterThanOrEqual(0);
    } finally {
      await served.stop();
    }
  }, 120_000);
});
