// The PostgreSQL side of AccountAuthStore: passwords, sessions, plan changes and key lists with the
// SQLite store's semantics (sqlite/account-auth-sqlite.ts), so any instance sees one sign-in state.
import type { AccountAuthStore, PlanChange, SessionRecord } from '../account-auth-store.js';
import { KEY_SELECT, toAccount, toKey, toSession, type AccountRow, type KeyRow, type SessionRow } from '../core/account-rows.js';
import type { Account, ApiKeyRecord } from '../store.js';
import type { Pg } from './pg-connection.js';


type AccountWithPassword = AccountRow & { has_password: boolean };

/** Use through PgStore.accountAuth; `atomically` runs a write of two statements as one transaction. */
export class PgAccountAuth implements AccountAuthStore {
  constructor(
    private readonly sql: Pg,
    private readonly atomically: <T>(fn: (sql: Pg) => Promise<T>) => Promise<T>,
  ) {}

  async passwordHash(accountId: number): Promise<string | undefined> {
    const [row] = await this.sql<{ hash: string }[]>`SELECT hash FROM account_passwords WHERE account_id = ${accountId}`;
    return row?.hash;
  }

  async setPasswordHash(accountId: number, hash: string, now: number): Promise<void> {
    // A new password ends every session of the account, in the same commit.
    await this.atomically(async (sql) => {
      await sql`
        INSERT INTO account_passwords (account_id, hash, updated_at) VALUES (${accountId}, ${hash}, ${now})
        ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`;
      await sql`DELETE FROM sessions WHERE account_id = ${accountId}`;
    });
  }

  async createSession(s: SessionRecord): Promise<void> {
    await this.sql`
      INSERT INTO sessions (token_hash, account_id, csrf, created_at, expires_at)
      VALUES (${s.tokenHash}, ${s.accountId}, ${s.csrf}, ${s.createdAt}, ${s.expiresAt})`;
  }

  async findSession(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const [row] = await this.sql<SessionRow[]>`SELECT * FROM sessions WHERE token_hash = ${tokenHash}`;
    if (!row) return undefined;
    if (row.expires_at <= now) {
      // Sweep every expired session while here: they are useless and hold hashes of old tokens.
      await this.sql`DELETE FROM sessions WHERE expires_at <= ${now}`;
      return undefined;
    }
    return toSession(row);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE token_hash = ${tokenHash}`;
  }

  async setPlan(accountId: number, change: PlanChange): Promise<Account | undefined> {
    const [row] = await this.sql<AccountRow[]>`
      UPDATE accounts SET plan = ${change.plan}, trial_ends_at = ${change.trialEndsAt}, rpm = ${change.requestsPerMinute},
        burst = ${change.burstPerSecond} WHERE id = ${accountId} RETURNING *`;
    return row ? toAccount(row) : undefined;
  }

  async keysOf(accountId: number): Promise<ApiKeyRecord[]> {
    const rows = await this.sql.unsafe<KeyRow[]>(`SELECT ${KEY_SELECT} FROM api_keys k WHERE account_id = $1 ORDER BY id`, [accountId], { prepare: true });
    return rows.map(toKey);
  }

  async listAccounts(): Promise<(Account & { hasPassword: boolean })[]> {
    const rows = await this.sql<AccountWithPassword[]>`
      SELECT a.*, EXISTS (SELECT 1 FROM account_passwords p WHERE p.account_id = a.id) AS has_password
      FROM accounts a ORDER BY a.name`;
    return rows.map((r) => ({ ...toAccount(r), hasPassword: r.has_password }));
  }
}
