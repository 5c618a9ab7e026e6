// Copies a MemoryStore's data set into a fresh SQLite store file through the store's own write
// paths, so the SQLite (and, loaded from that file, the PostgreSQL) backend holds exactly what the
// memory backend does: markets and snapshots by `serve import` (snapshot ids kept), accounts and
// keys by createAccount / createKey / revokeKey.
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { MARKET_DETAIL_FIELDS } from '../../domain/market.js';
import { importFile } from '../../store/import/import-file.js';
import { openSqliteStore } from '../../store/sqlite/open.js';
import type { MemoryStore } from './memory-store.js';

/** Use to write `memory`'s contents into a new store at `file`; `ndjson` is a scratch path for the import file. */
export async function copyIntoSqlite(memory: MemoryStore, file: string, ndjson: string): Promise<void> {
  const { markets, accounts, keys } = memory.contents();
  const lines: string[] = [];
  for (const m of markets) {
    const details = Object.fromEntries(MARKET_DETAIL_FIELDS.map((f) => [f, m[f]]));
    lines.push(
      JSON.stringify({
        market_id: m.market_id,
        coin: m.coin,
        market_type: m.market_type,
        start_time: m.start_time,
        end_time: m.end_time,
        price_start: m.price_start,
        price_end: m.price_end,
        winner: m.winner,
        ...details,
      }),
    );
    // The export shape `msnap snapshots --ndjson` writes, ids included, depth where stored.
    for (const s of m.snapshots) lines.push(JSON.stringify(s));
  }
  writeFileSync(ndjson, lines.join('\n') + '\n');

  const store = openSqliteStore(file);
  const expiries: [number, number][] = [];
  try {
    await importFile(store.bulk, ndjson, { format: 'ndjson' });
    const accountIds = new Map<number, number>();
    for (const { id, ...a } of accounts) accountIds.set(id, (await store.createAccount(a)).id);
    for (const k of keys) {
      const record = await store.createKey(accountIds.get(k.accountId)!, k.keyHash, k.prefix, k.createdAt, k.name);
      if (k.revokedAt !== null) await store.revokeKey(record.id, k.revokedAt);
      if (k.expiresAt !== null) expiries.push([record.id, k.expiresAt]);
    }
  } finally {
    store.closeSync();
  }
  setExpiries(file, expiries);
}

/**
 * The Store interface has no write for a key's expiry (no command sets one yet), so the test data
 * sets it with one UPDATE of the column the store reads (api_keys.expires_at, migration 1).
 */
function setExpiries(file: string, expiries: readonly [number, number][]): void {
  if (expiries.length === 0) return;
  const db = new Database(file);
  try {
    const update = db.prepare('UPDATE api_keys SET expires_at = ? WHERE id = ?');
    db.transaction(() => {
      for (const [id, at] of expiries) update.run(at, id);
    })();
  } finally {
    db.close();
  }
}
