// How the bench drives msnap: seed a database, create keys, start `msnap serve`. One place
// knows the command lines, so the figures read as measurements, not as flag plumbing.
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { MSNAP_BIN, runMsnap, startServer } from './child-process.js';

// `serve` and its subcommands both declare --db (and once routed it to the parent); MSNAP_DB
// names the same file too, so a bench database never lands in ./msnap.db whatever the parser does.
const dbEnv = (db) => ({ MSNAP_DB: db });

/** The `serve seed` flags for `{ days, full: { type: newest markets with full snapshots }, orderbookMinutes?, orderbookDays? }`. */
export function seedFlags({ days, full, orderbookMinutes, orderbookDays }) {
  return [
    '--days', String(days), '--full', Object.entries(full).map(([type, n]) => `${type}=${n}`).join(','),
    ...(orderbookMinutes !== undefined ? ['--orderbook-minutes', String(orderbookMinutes)] : []),
    ...(orderbookDays !== undefined ? ['--orderbook-days', String(orderbookDays)] : []),
  ];
}

/**
 * Stores seeded by one figure that a later one may read rather than seed again, by their seed
 * flags (`seedFlags(spec)` plus `extra`). The reader must not change the file's data.
 */
export function seededStores(ctx) {
  ctx.seeded ??= new Map();
  const key = (spec, extra = []) => [...seedFlags(spec), ...extra].join(' ');
  return {
    remember: (spec, extra, file) => ctx.seeded.set(key(spec, extra), file),
    find: (spec, extra) => ctx.seeded.get(key(spec, extra)),
  };
}

/** Seed `db` with `msnap serve seed`; returns `{ wallMs, snapshots, orderbooks, markets, command }`. */
export async function seedDatabase(db, spec, { tmpDir } = {}) {
  const args = ['serve', 'seed', '--db', db, ...seedFlags(spec)];
  const started = performance.now();
  const result = await runMsnap(args, { tmpDir, env: dbEnv(db) });
  const wallMs = performance.now() - started;
  return { wallMs, ...countRows(db), command: `msnap ${args.join(' ')}`, output: result.stdout.trim() };
}

/** Row counts of a database file, read directly (the bench's own view, not msnap's report). */
export function countRows(db) {
  const d = new Database(db, { readonly: true });
  try {
    return d
      .prepare(
        `SELECT (SELECT count(*) FROM markets) AS markets, (SELECT count(*) FROM snapshots) AS snapshots,
                (SELECT count(*) FROM orderbooks) AS orderbooks`,
      )
      .get();
  } finally {
    d.close();
  }
}

/** Create an account (first use) and a key on it; returns the key printed alone on stdout. */
export async function createKey(db, { account, plan, rpm, burst }) {
  const args = ['serve', 'keys', 'create', '--account', account, '--plan', plan, '--db', db];
  if (rpm !== undefined) args.push('--rpm', String(rpm));
  if (burst !== undefined) args.push('--burst', String(burst));
  const { stdout } = await runMsnap(args, { env: dbEnv(db) });
  const key = stdout.trim().split('\n').pop()?.trim();
  if (!key) throw new Error(`msnap ${args.join(' ')} printed no key`);
  return key;
}

/** Start `msnap serve` on 127.0.0.1, port 0, over `db` (`extra`: more serve flags, e.g. --live). */
export function startMsnapServe(db, extra = []) {
  return startServer(MSNAP_BIN, ['serve', '--db', db, '--host', '127.0.0.1', '--port', '0', ...extra], { env: dbEnv(db) });
}

/** Markets of a type whose snapshots are complete (8/s over the whole market), newest first. */
export function fullMarkets(db, { type, coin, limit = 1000 } = {}) {
  const d = new Database(db, { readonly: true });
  try {
    const where = ['dense = 1', 'snapshot_count * 125 = end_time - start_time'];
    const params = [];
    if (type) { where.push('market_type = ?'); params.push(type); }
    if (coin) { where.push('coin = ?'); params.push(coin); }
    return d
      .prepare(`SELECT market_id, coin, market_type, start_time, end_time, snapshot_count FROM markets
                WHERE ${where.join(' AND ')} ORDER BY start_time DESC, market_id DESC LIMIT ?`)
      .all(...params, limit);
  } finally {
    d.close();
  }
}
