// `msnap serve accounts` as a process, and the accounts it makes signing in to a running serve.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, startServe } from './support/msnap-process.js';

const PASSWORD = 'operator chosen secret';
let dir: string;
let db: string;

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-accounts-'));
  db = path.join(dir, 'a.db');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], input?: string) => msnap(['serve', 'accounts', ...args, '--db', db], { input, cwd: dir });

async function list(): Promise<Record<string, unknown>[]> {
  const r = await run(['list', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>[];
}

describe('serve accounts', () => {
  it('sets passwords (creating accounts when told how) and plans; stores only a scrypt hash', async () => {
    const bob = await run(['password', 'bob', '--plan', 'pro'], `${PASSWORD}\n`);
    expect(bob.exitCode, bob.stderr).toBe(0);
    expect(bob.stderr).toBe('password set for account "bob" (pro); it can sign in at the dashboard (serve\'s URL)');
    const before = Date.now();
    expect((await run(['password', 'carol', '--trial'], PASSWORD)).exitCode).toBe(0);
    const [b, c] = await list();
    expect(b).toEqual({ name: 'bob', plan: 'pro', trial_ends_at: null, can_sign_in: true, active_keys: 0 });
    expect(c).toMatchObject({ name: 'carol', plan: 'builder', can_sign_in: true });
    expect(c!.trial_ends_at as number).toBeGreaterThanOrEqual(before + 3 * 86_400_000);

    const upgrade = await run(['plan', 'carol', 'enterprise', '--rpm', '100', '--burst', '5']);
    expect(upgrade.stderr).toBe('account "carol" is now on the enterprise plan, 100 req/min, burst 5/s (trial ended)');
    expect((await list())[1]).toMatchObject({ plan: 'enterprise', trial_ends_at: null });

    const bytes = readdirSync(dir).map((f) => readFileSync(path.join(dir, f)).toString('latin1')).join('');
    expect(bytes).not.toContain(PASSWORD);
    expect(bytes).toMatch(/scrypt\$32768\$8\$1\$/);
  });

  it.each([
    [['plan', 'nobody', 'pro'], undefined, /^msnap: no account "nobody"/],
    [['plan', 'bob', 'gold'], undefined, /^msnap: plan must be one of builder, pro, enterprise; got "gold"/],
    [['plan', 'bob', 'pro', '--rpm', '5'], undefined, /^msnap: --rpm and --burst are set per account only on the enterprise plan/],
    [['password', 'dan'], PASSWORD, /^msnap: account "dan" does not exist yet: give --plan/],
    [['password', 'bob'], 'short', /^msnap: the password must have at least 10 characters/],
    [['password', 'bob'], '', /^msnap: no password given/],
  ])('serve accounts %j is one usage line, exit 2', async (args, input, message) => {
    const r = await run(args, input);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('list and plan refuse a database that does not exist instead of creating it', async () => {
    const missing = path.join(dir, 'typo.db');
    for (const args of [['list'], ['plan', 'bob', 'pro']]) {
      const r = await msnap(['serve', 'accounts', ...args, '--db', missing], { cwd: dir });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`msnap: no database at ${missing}`);
    }
    expect(readdirSync(dir)).not.toContain('typo.db');
  });

  it('an account with a password signs in at `serve --no-signup`, which takes no sign-ups', async () => {
    const served = await startServe(db, { args: ['--no-signup'] });
    const url = served.url;
    try {
      expect((await fetch(`${url}/signup`)).status).toBe(403);
      const page = await fetch(`${url}/signin`);
      const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
      const post = (password: string) =>
        fetch(`${url}/signin`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, account: 'bob', password }).toString(),
        });
      expect((await post('not the password')).status).toBe(401);
      const ok = await post(PASSWORD);
      expect(ok.status).toBe(303);
      expect(ok.headers.get('set-cookie')).toMatch(/msnap_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200/);
    } finally {
      await served.stop();
    }
  });
});
