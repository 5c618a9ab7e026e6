// Accounts and API keys in SQLite: keys are stored only as sha256 hashes with a display prefix.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { Account, ApiKeyRecord } from '../../store.js';
import { KEY_SELECT, KEY_WITH_ACCOUNT_FROM, toAccount, toKey, toKeyWithAccount, type AccountRow, type KeyRow, type KeyWithAccountRow } from '../../core/account-rows.js';
import type { DataVersion } from '../data-version.js';

/**
 * A statement prepared on first use: a read-only connection to a store an older msnap wrote (no
 * key names yet, and it cannot migrate) must open for snapshot reads without the key columns.
 */
function lazy(db: Database.Database, sql: string, pluck = false): () => Statement {
  let stmt: Statement | undefined;
  return () => (stmt ??= pluck ? db.prepare(sql).pluck() : db.prepare(sql));
}

/** Use for the Store's account and key methods over one SQLite connection. */
export class AccountRecords {
  private readonly accountByName: () => Statement;
  private readonly accountById: () => Statement;
  private readonly insertAccount: () => Statement;
  private readonly insertKey: () => Statement;
  private readonly keyByHash: () => Statement;
  private readonly keyWithAccount: () => Statement;
  private readonly touch: () => Statement;
  private readonly allKeys: () => Statement;
  private readonly revoke: () => Statement;
  private readonly activeKeys: () => Statement;

  constructor(
    db: Database.Database,
    private readonly version: DataVersion,
  ) {
    this.accountByName = lazy(db, 'SELECT * FROM accounts WHERE name = ? COLLATE NOCASE');
    this.accountById = lazy(db, 'SELECT * FROM accounts WHERE id = ?');
    this.insertAccount = lazy(db, 
      'INSERT INTO accounts (name, plan, trial_ends_at, rpm, burst, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insertKey = lazy(db, 'INSERT INTO api_keys (account_id, key_hash, prefix, created_at, name) VALUES (?, ?, ?, ?, ?)');
    this.keyByHash = lazy(db, `SELECT ${KEY_SELECT} FROM api_keys k WHERE key_hash = ?`);
    this.touch = lazy(db, 'UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)');
    this.keyWithAccount = lazy(db, `${KEY_WITH_ACCOUNT_FROM} WHERE k.key_hash = ?`);
    this.allKeys = lazy(db, `${KEY_WITH_ACCOUNT_FROM} ORDER BY k.id`);
    this.revoke = lazy(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.activeKeys = lazy(
      db,
      `SELECT count(*) FROM api_keys WHERE account_id = ? AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > ?)`,
      true,
    );
  }

  /** See Store.getAccount. */
  getAccount(name: string): Account | undefined {
    const row = this.accountByName().get(name) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  /** See Store.getAccountById. */
  getAccountById(id: number): Account | undefined {
    const row = this.accountById().get(id) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  /** See Store.createAccount. */
  createAccount(a: Omit<Account, 'id'>): Account {
    const info = this.insertAccount().run(a.name, a.plan, a.trialEndsAt, a.requestsPerMinute, a.burstPerSecond, a.createdAt);
    this.version.bump();
    return { ...a, id: Number(info.lastInsertRowid) };
  }

  /** See Store.createKey. */
  createKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): ApiKeyRecord {
    const info = this.insertKey().run(accountId, keyHash, prefix, now, name);
    this.version.bump();
    return { id: Number(info.lastInsertRowid), accountId, prefix, createdAt: now, revokedAt: null, expiresAt: null, name, lastUsedAt: null };
  }

  /** See Store.touchKey. No data-version bump: a use changes no answer of the API. */
  touchKey(id: number, now: number, minIntervalMs: number): boolean {
    return this.touch().run(now, id, now - minIntervalMs).changes > 0;
  }

  /** See Store.findKeyByHash. */
  findKeyByHash(keyHash: string): ApiKeyRecord | undefined {
    const row = this.keyByHash().get(keyHash) as KeyRow | undefined;
    return row ? toKey(row) : undefined;
  }

  /** See Store.findKeyWithAccount. */
  findKeyWithAccount(keyHash: string): (ApiKeyRecord & { account: Account }) | undefined {
    const row = this.keyWithAccount().get(keyHash) as KeyWithAccountRow | undefined;
    return row ? toKeyWithAccount(row) : undefined;
  }

  /** See Store.listKeys. */
  listKeys(): (ApiKeyRecord & { account: Account })[] {
    return (this.allKeys().all() as KeyWithAccountRow[]).map(toKeyWithAccount);
  }

  /** See Store.revokeKey. */
  revokeKey(id: number, now: number): boolean {
    const changed = this.revoke().run(now, id).changes > 0;
    if (changed) this.version.bump();
    return changed;
  }

  /** See Store.countActiveKeys. */
  countActiveKeys(accountId: number, now: number): number {
    return this.activeKeys().get(accountId, now) as number;
  }
}
