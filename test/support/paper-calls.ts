// HTTP calls of the paper trading e2e tests against a running `msnap serve`: one keyed JSON call,
// and a wait for the server's (replay) clock; and the PostgreSQL store their two-instance suites share.
import { expect } from 'vitest';
import { msnap } from './msnap-process.js';
import { throwawayDatabase, type ThrowawayDatabase } from './throwaway-database.js';

/** One keyed call; the status and the parsed JSON body. */
export async function call(base: string, key: string, method: string, pathAndQuery: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${pathAndQuery}`, {
    method,
    headers: { 'X-API-Key': key, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) };
}

/** Polls the server's clock until it has passed `t` (a replay at a high speed gets there in seconds). */
export async function clockPast(base: string, key: string, t: number, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while ((await call(base, key, 'GET', '/v1/clock')).json.now <= t) {
    if (Date.now() > until) throw new Error(`the server's clock did not pass ${t} in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The seeded SQLite store `db` imported into a throwaway PostgreSQL database, with a key whose
 * limits no burst of paper orders meets: what the suites running two instances on one store share.
 */
export async function paperOnPostgres(db: string, cwd: string): Promise<{ pg: ThrowawayDatabase; key: string }> {
  const pg = await throwawayDatabase();
  const imported = await msnap(['serve', 'import', db, '--db', pg.url], { cwd, timeout: 120_000 });
  expect(imported.exitCode, String(imported.stderr)).toBe(0);
  const made = await msnap(['serve', 'keys', 'create', '--db', pg.url, '--account', 'pgbot', '--plan', 'enterprise', '--rpm', '100000', '--burst', '10000'], { cwd });
  expect(made.exitCode, String(made.stderr)).toBe(0);
  return { pg, key: String(made.stdout).trim() };
}
