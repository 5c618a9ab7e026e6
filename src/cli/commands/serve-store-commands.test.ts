import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { MsnapError } from '../../errors.js';
import { KEY_ROTATION_MS } from '../../domain/plans.js';
import { openBulkStore } from '../../store/open-store.js';
import type { CliContext } from '../context.js';
import { serveImportCommand } from './serve-import.js';
import { serveKeysCommand } from './serve-keys.js';
import { serveSeedCommand } from './serve-seed.js';

let dir: string;
let clock: number;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-cmd-'));
  clock = Date.UTC(2025, 10, 22, 13, 7, 30);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], stdin = ''): Promise<{ out: string; err: string; error?: unknown }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const ctx: CliContext = {
    stdout,
    stderr,
    stdin: Readable.from([stdin]),
    env: { MSNAP_DB: path.join(dir, 'env.db') },
    now: () => clock,
    sleep: async () => {},
  };
  const serve = new Command('serve').exitOverride().enablePositionalOptions();
  for (const c of [serveSeedCommand(ctx), serveImportCommand(ctx), serveKeysCommand(ctx)]) serve.addCommand(c);
  const silence = (c: Command): void => {
    c.exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
    c.commands.forEach(silence);
  };
  silence(serve);
  try {
    await serve.parseAsync(args, { from: 'user' });
    return { out, err };
  } catch (error) {
    return { out, err, error };
  }
}

describe('serve keys', () => {
  it('creates (key alone on stdout), lists without the key, flags rotation, revokes', async () => {
    const db = path.join(dir, 'k.db');
    const c = await run(['keys', 'create', '--account', 'alice', '--plan', 'pro', '--db', db]);
    expect(c.error).toBeUndefined();
    expect(c.out).toMatch(/^msk_[0-9A-Za-z]{40}\n$/);
    expect(c.err).toContain('created account "alice" (pro)');
    clock += KEY_ROTATION_MS + 1;
    const list = await run(['keys', 'list', '--json', '--db', db]);
    const records = JSON.parse(list.out);
    expect(records).toEqual([expect.objectContaining({ id: 1, account: 'alice', plan: 'pro', status: 'active', rotate: true, age_days: 90 })]);
    expect(list.out).not.toContain(c.out.trim());
    const table = await run(['keys', 'list', '--db', db]);
    expect(table.out).toMatch(/ID\s+ACCOUNT\s+PLAN\s+KEY\s+NAME\s+AGE\s+LAST_USED\s+STATUS\s+ROTATE\n1\s+alice\s+pro\s+msk_\w{4}\.\.\.\s+-\s+90d\s+never\s+active\s+rotate/);
    expect((await run(['keys', 'revoke', '1', '--db', db])).error).toBeUndefined();
    expect(JSON.parse((await run(['keys', 'list', '--json', '--db', db])).out)[0].status).toBe('revoked');
    expect((await run(['keys', 'revoke', '9', '--db', db])).error).toMatchObject({ exitCode: 6 });
  });

  it('names a key with --name, refuses a name too long, and lists the name and the last use', async () => {
    const db = path.join(dir, 'n.db');
    expect((await run(['keys', 'create', '--account', 'alice', '--plan', 'pro', '--name', '  laptop  ', '--db', db])).error).toBeUndefined();
    const long = await run(['keys', 'create', '--account', 'alice', '--name', 'x'.repeat(61), '--db', db]);
    expect(long.error).toMatchObject({ exitCode: 2, message: '--name: a key name has at most 60 characters' });
    const store = await openBulkStore(db);
    try {
      expect(await store.touchKey(1, clock, 60_000)).toBe(true);
    } finally {
      store.closeSync();
    }
    const [record] = JSON.parse((await run(['keys', 'list', '--json', '--db', db])).out);
    expect(record).toMatchObject({ id: 1, name: 'laptop', last_used_at: clock });
    expect((await run(['keys', 'list', '--db', db])).out).toContain(` laptop  `);
  });

  it('lists through the exporter in the exact bytes: aligned columns, an indented JSON array, a hint when empty', async () => {
    const db = path.join(dir, 'l.db');
    // A missing file is a mistyped --db, not an empty list: nothing is created.
    const missing = await run(['keys', 'list', '--db', db]);
    expect((missing.error as MsnapError).message).toBe(`no database at ${db}`);
    expect(existsSync(db)).toBe(false);
    (await openBulkStore(db)).closeSync();
    expect((await run(['keys', 'list', '--db', db])).out).toBe('no keys yet (create one: msnap serve keys create --account NAME --plan builder)\n');
    expect((await run(['keys', 'list', '--json', '--db', db])).out).toBe('[]\n');
    const alice = (await run(['keys', 'create', '--account', 'alice', '--plan', 'pro', '--db', db])).out.trim();
    clock += 3 * 24 * 3_600_000;
    const bob = (await run(['keys', 'create', '--account', 'bob-the-builder', '--trial', '--db', db])).out.trim();
    await run(['keys', 'revoke', '2', '--db', db]);
    clock += KEY_ROTATION_MS - 24 * 3_600_000;
    const created = Date.UTC(2025, 10, 22, 13, 7, 30);
    expect((await run(['keys', 'list', '--db', db])).out).toBe(
      [
        'ID  ACCOUNT          PLAN             KEY          NAME  AGE  LAST_USED  STATUS   ROTATE',
        `1   alice            pro              ${alice.slice(0, 8)}...  -     92d  never      active   rotate (>90d)`,
        `2   bob-the-builder  builder (trial)  ${bob.slice(0, 8)}...  -     89d  never      revoked`,
        '',
      ].join('\n'),
    );
    const records = [
      { id: 1, account: 'alice', plan: 'pro', trial: false, prefix: alice.slice(0, 8), name: null, created_at: created, age_days: 92, last_used_at: null, status: 'active', rotate: true },
      { id: 2, account: 'bob-the-builder', plan: 'builder', trial: true, prefix: bob.slice(0, 8), name: null, created_at: created + 3 * 24 * 3_600_000, age_days: 89, last_used_at: null, status: 'revoked', rotate: false },
    ];
    expect((await run(['keys', 'list', '--json', '--db', db])).out).toBe(`${JSON.stringify(records, null, 2)}\n`);
  });

  it('rejects bad flags with one clear line', async () => {
    for (const [args, msg] of [
      [['keys', 'create', '--account', 'a', '--plan', 'gold'], '--plan must be one of builder, pro, enterprise'],
      [['keys', 'create', '--account', 'a', '--plan', 'enterprise', '--rpm', '-3'], '--rpm must be a positive integer'],
      [['keys', 'create', '--account', 'a'], 'does not exist yet'],
      [['keys', 'revoke', 'x'], 'key id must be a positive integer'],
      [['seed', '--days', '0'], '--days must be an integer from 1 to 3650'],
      [['seed', '--full', '7m=3'], '--full takes TYPE=N pairs'],
    ] as const) {
      const r = await run([...args]);
      expect(r.error, args.join(' ')).toBeInstanceOf(MsnapError);
      expect((r.error as MsnapError).message).toContain(msg);
      expect((r.error as MsnapError).exitCode).toBe(2);
    }
  });
});

describe('serve seed and import', () => {
  it('seeds (MSNAP_DB default), refuses a second seed, and imports from a file and stdin', async () => {
    const s = await run(['seed', '--days', '1', '--full', '5m=1,15m=0,1hr=0,4hr=0,24hr=0']);
    expect(s.error).toBeUndefined();
    expect(s.out).toMatch(/^seeded .*env\.db: 1,\d{3} markets \(3 with full snapshots\), [\d,]+ snapshots/);
    expect((await run(['seed', '--days', '1'])).error).toMatchObject({ message: expect.stringContaining('already holds') });
    const line = JSON.stringify({ market_id: 'eth-updown-5m-1763769600', time: 1763769600125, price: 3500.5, price_up: 0.5, price_down: 0.5 });
    const file = path.join(dir, 'in.ndjson');
    writeFileSync(file, line + '\n');
    const i = await run(['import', file, '--db', path.join(dir, 'i.db')]);
    expect(i.out).toMatch(/1 snapshot added, 0 already present; 1 market added/);
    const again = await run(['import', '-', '--db', path.join(dir, 'i.db')], line);
    expect(again.out).toMatch(/0 snapshots added, 1 already present/);
    const bad = await run(['import', path.join(dir, 'missing.csv'), '--db', path.join(dir, 'i.db')]);
    expect((bad.error as MsnapError).message).toContain('no such file');
  });
});
