// Several `msnap serve keys create` processes racing on one brand-new database: migrations,
// account creation and the plan's active-key count must each happen exactly once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqliteStore } from '../src/store/sqlite/open.js';
import { buildIfStale, msnap } from './support/msnap-process.js';

let dir: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-keys-race-'));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('6 concurrent creates for one new builder account on a new database: exactly 3 keys, 3 clear refusals', async () => {
  const db = path.join(dir, 'race.db');
  const runs = await Promise.all(
    Array.from({ length: 6 }, () => msnap(['serve', 'keys', 'create', '--account', 'team', '--plan', 'builder', '--db', db], { cwd: dir })),
  );
  const ok = runs.filter((r) => r.exitCode === 0);
  const refused = runs.filter((r) => r.exitCode !== 0);
  expect(ok.map((r) => String(r.stdout).trim())).toHaveLength(3);
  for (const r of ok) expect(String(r.stdout).trim()).toMatch(/^msk_\w+$/);
  for (const r of refused) {
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/already has 3 active keys/);
  }
  const list = await msnap(['serve', 'keys', 'list', '--json', '--db', db], { cwd: dir });
  expect(list.exitCode, list.stderr).toBe(0);
  const keys = JSON.parse(String(list.stdout)) as { account: string }[];
  expect(keys.filter((k) => k.account === 'team')).toHaveLength(3);
});

it('a database another process keeps write-locked past the busy timeout: one line, exit 8, nothing written', async () => {
  const db = path.join(dir, 'locked.db');
  // An empty, migrated database (keys list no longer creates one).
  openSqliteStore(db).close();
  const holder = new Database(db);
  holder.exec('BEGIN IMMEDIATE');
  try {
    const r = await msnap(['serve', 'keys', 'create', '--account', 'late', '--plan', 'pro', '--db', db], { cwd: dir });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `msnap: database ${db} is busy: another msnap process is writing to it (import, seed or keys); try again when it has finished`,
    );
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  const list = await msnap(['serve', 'keys', 'list', '--json', '--db', db], { cwd: dir });
  expect(list.stdout).toBe('[]');
}, 30_000);
