// The `serve` admin commands called as run(opts, deps) with deps whose store openers wrap a real
// temporary SQLite file: every store a run opens goes through deps and is closed when it ends.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { buildDeps, type CliDeps } from '../deps.js';
import type { GlobalOptions } from '../global-options.js';
import { fakeClient, fakeContext, market, snapshotsOf } from '../test-support/fake-cli.js';
import { runAccountsList, runAccountsPassword, runAccountsPlan } from './serve-accounts.js';
import { parseCompactBooksFlags, runCompactBooks } from './serve-compact-books.js';
import { runImport } from './serve-import.js';
import { runKeysCreate, runKeysList, runKeysRevoke } from './serve-keys.js';
import { runSeed } from './serve-seed.js';

const NOW = Date.UTC(2025, 10, 22, 13, 7, 30);
const TINY = { days: 1, seed: 1, full: { '5m': 1, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookMs: 10 * 60_000 } as const;

let dir: string;
let db: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-admin-'));
  db = path.join(dir, 'admin.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Deps over a fake context whose openers count the stores opened and closed. */
function admin(globals: GlobalOptions = {}) {
  const { ctx, stdout, stderr } = fakeContext({ now: NOW });
  const deps = buildDeps(ctx, globals, fakeClient([]).factory).deps;
  const counts = { opened: 0, closed: 0 };
  const counted = <S extends { close(): Promise<void> }>(store: S): S => {
    counts.opened++;
    const close = store.close.bind(store);
    store.close = async () => {
      counts.closed++;
      await close();
    };
    return store;
  };
  const real = { openStore: deps.openStore, openBulkStore: deps.openBulkStore };
  const wrapped: CliDeps = {
    ...deps,
    openStore: async (location, opts) => counted(await real.openStore(location, opts)),
    openBulkStore: async (location, opts) => counted(await real.openBulkStore(location, opts)),
  };
  return { deps: wrapped, counts, out: () => stdout.text(), err: () => stderr.text() };
}

describe('serve keys run functions', () => {
  it('create prints the key alone on stdout, list gives its record (JSON with --json), revoke ends it', async () => {
    const create = admin();
    const created = await runKeysCreate({ db, account: 'alice', plan: 'pro', trial: false }, create.deps);
    expect(create.out()).toBe(`${created.key}\n`);
    expect(create.err()).toBe(`created account "alice" (pro); key #1 (${created.record.prefix}...). Store it now: it is not shown again.\n`);
    const list = admin({ json: true });
    await runKeysList({ db }, list.deps);
    const [record] = JSON.parse(list.out()) as { id: number; account: string; status: string }[];
    expect(record).toMatchObject({ id: 1, account: 'alice', plan: 'pro', status: 'active', rotate: false });
    const revoke = admin();
    await runKeysRevoke({ db, id: 1 }, revoke.deps);
    await expect(runKeysRevoke({ db, id: 1 }, revoke.deps)).rejects.toThrow('key 1 is already revoked');
    for (const run of [create, list, revoke]) expect(run.counts.opened).toBe(run.counts.closed);
    expect(revoke.counts.opened).toBe(2);
  });

  it('list refuses a missing database without opening (or creating) one', async () => {
    const list = admin();
    await expect(runKeysList({ db }, list.deps)).rejects.toThrow(`no database at ${db}`);
    expect(list.counts.opened).toBe(0);
  });
});

describe('serve accounts run functions', () => {
  it('password creates a trial account, plan ends the trial, list shows both as a table', async () => {
    const first = admin();
    await runAccountsPassword({ db, name: 'bob', password: 'correct horse battery', trial: true }, first.deps);
    expect(first.err()).toBe('password set for account "bob" (builder); it can sign in at the dashboard (serve\'s URL)\n');
    const plan = admin();
    await runAccountsPlan({ db, name: 'bob', plan: 'pro' }, plan.deps);
    expect(plan.err()).toBe('account "bob" is now on the pro plan (trial ended)\n');
    const list = admin();
    await runAccountsList({ db }, list.deps);
    expect(list.out().split('\n')[1]).toMatch(/^bob\s+pro\s+yes\s+0$/);
    for (const run of [first, plan, list]) expect(run.counts).toEqual({ opened: 1, closed: 1 });
  });
});

describe('serve seed, import and compact-books run functions', () => {
  it('seed writes through the bulk store once, and refuses a database that already holds markets', async () => {
    const seed = admin();
    const summary = await runSeed({ db, ...TINY }, seed.deps);
    expect(summary.markets).toBeGreaterThan(0);
    expect(seed.out()).toMatch(new RegExp(`^seeded ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${summary.markets.toLocaleString('en-US')} markets \\(3 with full snapshots\\)`));
    const again = admin();
    await expect(runSeed({ db, ...TINY }, again.deps)).rejects.toThrow(UsageError);
    expect([seed.counts, again.counts]).toEqual([{ opened: 1, closed: 1 }, { opened: 1, closed: 1 }]);
  });

  it('import reads a file into the bulk store and reports what it added; a second import adds nothing', async () => {
    const m = market('BTC', '5m', Date.UTC(2025, 10, 22, 12), 3);
    const file = path.join(dir, 'snaps.ndjson');
    writeFileSync(file, snapshotsOf(m).map((s) => JSON.stringify(s)).join('\n') + '\n');
    const first = admin();
    expect(await runImport({ file, db }, first.deps)).toMatchObject({ snapshotsAdded: 3, marketsAdded: 1 });
    expect(first.out()).toMatch(/^imported .*snaps\.ndjson \(ndjson\): 3 snapshots added, 0 already present; 1 market added, 0 updated; /);
    const again = admin();
    expect(await runImport({ file, db }, again.deps)).toMatchObject({ snapshotsAdded: 0, snapshotsSkipped: 3 });
    expect([first.counts, again.counts]).toEqual([{ opened: 1, closed: 1 }, { opened: 1, closed: 1 }]);
  });

  it('compact-books runs on an existing SQLite file (and on PostgreSQL without --vacuum)', async () => {
    expect(() => parseCompactBooksFlags({ db: 'postgres://x@h/db', batch: '10', vacuum: true }, {})).toThrow(/--vacuum is for an SQLite file/);
    expect(parseCompactBooksFlags({ db: 'postgres://x@h/db', batch: '10' }, {}).db).toBe('postgres://x@h/db');
    expect(() => parseCompactBooksFlags({ db, batch: '0' }, {})).toThrow('--batch must be an integer from 1 to 10000000; got "0"');
    expect(() => parseCompactBooksFlags({ db, batch: '1e3' }, {})).toThrow('--batch must be an integer from 1 to 10000000; got "1e3"');
    await runSeed({ db, ...TINY }, admin().deps);
    const compact = admin();
    const done = await runCompactBooks(parseCompactBooksFlags({ db, batch: '1000' }, {}), compact.deps);
    expect(compact.out()).toBe(
      `compacted ${db}: ${done.packed.toLocaleString('en-US')} orderbook rows packed, ${done.kept.toLocaleString('en-US')} kept as text, in ` +
        compact.out().split(' in ')[1],
    );
    expect(compact.counts).toEqual({ opened: 1, closed: 1 });
    const missing = admin();
    await expect(runCompactBooks({ db: path.join(dir, 'none.db'), batchRows: 10, vacuum: false }, missing.deps)).rejects.toThrow(/^no database at /);
  });
});
