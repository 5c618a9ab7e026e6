// Accounts and API keys in SQLite: keys are stored only as sha256 hashes with a display prefix.
import type Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { PlanName } from '../../domain/plans.js';
import type { Account, ApiKeyRecord } from '../store.js';
import type { DataVersion } from './data-version.js';

/** A row of `accounts` as SQLite returns it. */
export interface AccountRow {
  id: number;
  name: string;
  plan: string;
  trial_ends_at: number | null;
  rpm: number | null;
  burst: number | null;
  created_at: number;
}

/** A row of `api_keys` without its hash, as SQLite returns it. */
export interface KeyRow {
  id: number;
  account_id: number;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
}

/** Use for the Store's account and key methods over one SQLite connection. */
export class AccountRecords {
  private readonly accountByName: Statement;
  private readonly accountById: Statement;
  private readonly insertAccount: Statement;
  private readonly insertKey: Statement;
  private readonly keyByHash: Statement;
  private readonly allKeys: Statement;
  private readonly revoke: Statement;
  private readonly activeKeys: Statement;

  constructor(
    db: Database.Database,
    private readonly version: DataVersion,
  ) {
    this.accountByName = db.prepare('SELECT * FROM accounts WHERE name = ? COLLATE NOCASE');
    this.accountById = db.prepare('SELECT * FROM accounts WHERE id = ?');
    this.insertAccount = db.prepare(
      'INSERT INTO accounts (name, plan, trial_ends_at, rpm, burst, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insertKey = db.prepare('INSERT INTO api_keys (account_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?)');
    this.keyByHash = db.prepare(
      'SELECT id, account_id, prefix, created_at, revoked_at, expires_at FROM api_keys WHERE key_hash = ?',
    );
    this.allKeys = db.prepare(
      `SELECT k.id, k.account_id, k.prefix, k.created_at, k.revoked_at, k.expires_at,
              a.id AS a_id, a.name, a.plan, a.trial_ends_at, a.rpm, a.burst, a.created_at AS created_at_account
       FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.id`,
    );
    this.revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.activeKeys = db
      .prepare(
        `SELECT count(*) FROM api_keys WHERE account_id = ? AND revoked_at IS NULL
         AND (expires_at IS NULL OR expires_at > ?)`,
      )
      .pluck();
  }

  /** See Store.getAccount. */
  getAccount(name: string): Account | undefined {
    const row = this.accountByName.get(name) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  /** See Store.getAccountById. */
  getAccountById(id: number): Account | undefined {
    const row = this.accountById.get(id) as AccountRow | undefined;
    return row ? toAccount(row) : undefined;
  }

  /** See Store.createAccount. */
  createAccount(a: Omit<Account, 'id'>): Account {
    const info = this.insertAccount.run(a.name, a.plan, a.trialEndsAt, a.requestsPerMinute, a.burstPerSecond, a.createdAt);
    this.version.bump();
    return { ...a, id: Number(info.lastInsertRowid) };
  }

  /** See Store.createKey. */
  createKey(accountId: number, keyHash: string, prefix: string, now: number): ApiKeyRecord {
    const info = this.insertKey.run(accountId, keyHash, prefix, now);
    this.version.bump();
    return { id: Number(info.lastInsertRowid), accountId, prefix, createdAt: now, revokedAt: null, expiresAt: null };
  }

  /** See Store.findKeyByHash. */
  findKeyByHash(keyHash: string): ApiKeyRecord | undefined {
    const row = this.keyByHash.get(keyHash) as KeyRow | undefined;
    return row ? toKey(row) : undefined;
  }

  /** See Store.listKeys. */
  listKeys(): (ApiKeyRecord & { account: Account })[] {
    return (this.allKeys.all() as KeyWithAccountRow[]).map(toKeyWithAccount);
  }

  /** See Store.revokeKey. */
  revokeKey(id: number, now: number): boolean {
    const changed = this.revoke.run(now, id).changes > 0;
    if (changed) this.version.bump();
    return changed;
  }

  /** See Store.countActiveKeys. */
  countActiveKeys(accountId: number, now: number): number {
    return this.activeKeys.get(accountId, now) as number;
  }
}

/** Use to turn an `accounts` row into the Store's Account. */
export function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    name: r.name,
    plan: r.plan as PlanName,
    trialEndsAt: r.trial_ends_at,
    requestsPerMinute: r.rpm,
    burstPerSecond: r.burst,
    createdAt: r.created_at,
  };
}

/** Use to turn an `api_keys` row into the Store's ApiKeyRecord. */
/** A key row joined with its account's columns (the account's id and created_at renamed), as listKeys reads it. */
export type KeyWithAccountRow = KeyRow & Omit<AccountRow, 'id' | 'created_at'> & { a_id: number; created_at_account: number };

/** Use for listKeys in every store: the key and its account from one joined row. */
export function toKeyWithAccount(r: KeyWithAccountRow): ApiKeyRecord & { account: Account } {
  const account = toAccount({ id: r.a_id, name: r.name, plan: r.plan, trial_ends_at: r.trial_ends_at, rpm: r.rpm, burst: r.burst, created_at: r.created_at_account });
  return { ...toKey(r), account };
}

export function toKey(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    prefix: r.prefix,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    expiresAt: r.expires_at,
  };
}
