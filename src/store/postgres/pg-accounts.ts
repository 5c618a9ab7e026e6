// Accounts and API keys over PostgreSQL, with the SQLite store's semantics (sqlite/accounts.ts):
// keys only as sha256 hashes, revoked or expired keys not counted, records built by the same
// toAccount / toKey so every field and its order match.
import { KEY_SELECT, KEY_WITH_ACCOUNT_FROM, toAccount, toKey, toKeyWithAccount, type AccountRow, type KeyRow, type KeyWithAccountRow } from '../core/account-rows.js';
import type { Account, ApiKeyRecord } from '../store.js';
import type { Pg } from './pg-connection.js';


/** Use for the Store's account and key methods over a pool or a transaction. */
export class PgAccounts {
  constructor(private readonly sql: Pg) {}

  /** See Store.getAccount. */
  async getAccount(name: string): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`SELECT * FROM accounts WHERE lower(name) = lower(${name})`;
    return row ? toAccount(row) : undefined;
  }

  /** See Store.getAccountById. */
  async getAccountById(id: number): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`SELECT * FROM accounts WHERE id = ${id}`;
    return row ? toAccount(row) : undefined;
  }

  /** See Store.createAccount. */
  async createAccount(a: Omit<Account, 'id'>): Promise<Account> {
    const [row] = await this.sql<{ id: number }[]>`
      INSERT INTO accounts (name, plan, trial_ends_at, rpm, burst, created_at)
      VALUES (${a.name}, ${a.plan}, ${a.trialEndsAt}, ${a.requestsPerMinute}, ${a.burstPerSecond}, ${a.createdAt}) RETURNING id`;
    return { ...a, id: row!.id };
  }

  /** See Store.createKey. */
  async createKey(accountId: number, keyHash: string, prefix: string, now: number, name: string | null = null): Promise<ApiKeyRecord> {
    const [row] = await this.sql<{ id: number }[]>`
      INSERT INTO api_keys (account_id, key_hash, prefix, created_at, name) VALUES (${accountId}, ${keyHash}, ${prefix}, ${now}, ${name}) RETURNING id`;
    return { id: row!.id, accountId, prefix, createdAt: now, revokedAt: null, expiresAt: null, name, lastUsedAt: null };
  }

  /** See Store.touchKey. */
  async touchKey(id: number, now: number, minIntervalMs: number): Promise<boolean> {
    const done = await this.sql`UPDATE api_keys SET last_used_at = ${now} WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${now - minIntervalMs})`;
    return done.count > 0;
  }

  /** See Store.findKeyByHash. */
  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.sql.unsafe<KeyRow[]>(`SELECT ${KEY_SELECT} FROM api_keys k WHERE key_hash = $1`, [keyHash], { prepare: true });
    return row ? toKey(row) : undefined;
  }

  /** See Store.findKeyWithAccount: one round trip for what every request's authentication reads. */
  async findKeyWithAccount(keyHash: string): Promise<(ApiKeyRecord & { account: Account }) | undefined> {
    const [row] = await this.sql.unsafe<KeyWithAccountRow[]>(`${KEY_WITH_ACCOUNT_FROM} WHERE k.key_hash = $1`, [keyHash], { prepare: true });
    return row ? toKeyWithAccount(row) : undefined;
  }

  /** See Store.listKeys. */
  async listKeys(): Promise<(ApiKeyRecord & { account: Account })[]> {
    const rows = await this.sql.unsafe<KeyWithAccountRow[]>(`${KEY_WITH_ACCOUNT_FROM} ORDER BY k.id`);
    return rows.map(toKeyWithAccount);
  }

  /** See Store.revokeKey. */
  async revokeKey(id: number, now: number): Promise<boolean> {
    const done = await this.sql`UPDATE api_keys SET revoked_at = ${now} WHERE id = ${id} AND revoked_at IS NULL`;
    return done.count > 0;
  }

  /** See Store.countActiveKeys. */
  async countActiveKeys(accountId: number, now: number): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`
      SELECT count(*) AS n FROM api_keys WHERE account_id = ${accountId} AND revoked_at IS NULL
      AND (expires_at IS NULL OR expires_at > ${now})`;
    return row!.n;
  }
}
