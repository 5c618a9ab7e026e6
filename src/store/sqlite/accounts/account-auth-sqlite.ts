// The SQLite side of AccountAuthStore: passwords and sessions (migration 5), plan changes and
// per-account key lists over the tables the API store also uses. Shares the Store's connection.
import type Database from 'better-sqlite3';
import type { AccountAuthStore, PlanChange, SessionRecord } from '../../account-auth-store.js';
import type { Account, ApiKeyRecord } from '../../store.js';
import { KEY_SELECT, toAccount, toKey, toSession, type AccountRow, type KeyRow, type SessionRow } from '../../core/account-rows.js';

/** Use with the `db` of an open SqliteStore (its migrations have created the tables). */
export class SqliteAccountAuthStore implements AccountAuthStore {
  private prepared: ReturnType<typeof prepare> | undefined;

  constructor(private readonly db: Database.Database) {}

  // Prepared on first use: a read-only store over a database older than migration 5 has no
  // such tables, and only the dashboard and `serve accounts` ever need them.
  private get stmts(): ReturnType<typeof prepare> {
    this.prepared ??= prepare(this.db);
    return this.prepared;
  }

  async passwordHash(accountId: number): Promise<string | undefined> {
    return this.stmts.passwordHash.get(accountId) as string | undefined;
  }

  async setPasswordHash(accountId: number, hash: string, now: number): Promise<void> {
    this.db.transaction(() => {
      this.stmts.upsertPassword.run(accountId, hash, now);
      this.stmts.deleteSessionsOf.run(accountId);
    }).immediate();
  }

  async createSession(s: SessionRecord): Promise<void> {
    this.stmts.insertSession.run(s.tokenHash, s.accountId, s.csrf, s.createdAt, s.expiresAt);
  }

  async findSession(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = this.stmts.session.get(tokenHash) as SessionRow | undefined;
    if (!row) return undefined;
    if (row.expires_at <= now) {
      // Sweep every expired session while here: they are useless and hold hashes of old tokens.
      this.stmts.deleteExpired.run(now);
      return undefined;
    }
    return toSession(row);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    this.stmts.deleteSession.run(tokenHash);
  }

  async setPlan(accountId: number, change: PlanChange): Promise<Account | undefined> {
    const changed = this.stmts.setPlan.run(change.plan, change.trialEndsAt, change.requestsPerMinute, change.burstPerSecond, accountId);
    if (changed.changes === 0) return undefined;
    return toAccount(this.stmts.account.get(accountId) as AccountRow);
  }

  async keysOf(accountId: number): Promise<ApiKeyRecord[]> {
    return (this.stmts.keysOf.all(accountId) as KeyRow[]).map(toKey);
  }

  async listAccounts(): Promise<(Account & { hasPassword: boolean })[]> {
    return (this.stmts.accounts.all() as (AccountRow & { has_password: number })[]).map((r) => ({ ...toAccount(r), hasPassword: r.has_password === 1 }));
  }
}

const ACCOUNT_SELECT = `SELECT a.*, EXISTS (SELECT 1 FROM account_passwords p WHERE p.account_id = a.id) AS has_password FROM accounts a`;

function prepare(db: Database.Database) {
  return {
    passwordHash: db.prepare('SELECT hash FROM account_passwords WHERE account_id = ?').pluck(),
    upsertPassword: db.prepare(
      `INSERT INTO account_passwords (account_id, hash, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
    ),
    insertSession: db.prepare('INSERT INTO sessions (token_hash, account_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
    session: db.prepare('SELECT * FROM sessions WHERE token_hash = ?'),
    deleteSession: db.prepare('DELETE FROM sessions WHERE token_hash = ?'),
    deleteSessionsOf: db.prepare('DELETE FROM sessions WHERE account_id = ?'),
    deleteExpired: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
    setPlan: db.prepare('UPDATE accounts SET plan = ?, trial_ends_at = ?, rpm = ?, burst = ? WHERE id = ?'),
    account: db.prepare(`${ACCOUNT_SELECT} WHERE a.id = ?`),
    accounts: db.prepare(`${ACCOUNT_SELECT} ORDER BY a.name`),
    keysOf: db.prepare(`SELECT ${KEY_SELECT} FROM api_keys k WHERE account_id = ? ORDER BY id`),
  };
}

