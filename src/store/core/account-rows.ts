// Rows of the accounts, api_keys and sessions tables as both SQL stores read them, and the
// mappers to the Store's records: one copy, so SQLite and PostgreSQL answer alike.
import type { PlanName } from '../../domain/plans.js';
import type { SessionRecord } from '../account-auth-store.js';
import type { Account, ApiKeyRecord } from '../store.js';

/** A row of `accounts` as every store reads it. */
export interface AccountRow {
  id: number;
  name: string;
  plan: string;
  trial_ends_at: number | null;
  rpm: number | null;
  burst: number | null;
  created_at: number;
}

/** A row of `api_keys` without its hash, as every store reads it (`name` read as `key_name`: accounts have a name too). */
export interface KeyRow {
  id: number;
  account_id: number;
  prefix: string;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
  key_name: string | null;
  last_used_at: number | null;
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

/** A key row joined with its account's columns (the account's id and created_at renamed), as listKeys reads it. */
export type KeyWithAccountRow = KeyRow & Omit<AccountRow, 'id' | 'created_at'> & { a_id: number; created_at_account: number };

/** Use for listKeys in every store: the key and its account from one joined row. */
export function toKeyWithAccount(r: KeyWithAccountRow): ApiKeyRecord & { account: Account } {
  const account = toAccount({ id: r.a_id, name: r.name, plan: r.plan, trial_ends_at: r.trial_ends_at, rpm: r.rpm, burst: r.burst, created_at: r.created_at_account });
  return { ...toKey(r), account };
}

/** The columns of a KeyRow, `k.` prefixed for a join. */
export const KEY_SELECT = 'k.id, k.account_id, k.prefix, k.created_at, k.revoked_at, k.expires_at, k.name AS key_name, k.last_used_at';

/** Every key joined with its account, as KeyWithAccountRow reads it (add a WHERE / ORDER BY). */
export const KEY_WITH_ACCOUNT_FROM = `SELECT ${KEY_SELECT},
       a.id AS a_id, a.name, a.plan, a.trial_ends_at, a.rpm, a.burst, a.created_at AS created_at_account
  FROM api_keys k JOIN accounts a ON a.id = k.account_id`;

/** Use to turn an `api_keys` row into the Store's ApiKeyRecord. */
export function toKey(r: KeyRow): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    prefix: r.prefix,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    expiresAt: r.expires_at,
    name: r.key_name,
    lastUsedAt: r.last_used_at,
  };
}

/** A sessions row as both stores read it. */
export interface SessionRow {
  token_hash: string;
  account_id: number;
  csrf: string;
  created_at: number;
  expires_at: number;
}

/** Use in every store's findSession: the record of a stored row. */
export function toSession(row: SessionRow): SessionRecord {
  return { tokenHash: row.token_hash, accountId: row.account_id, csrf: row.csrf, createdAt: row.created_at, expiresAt: row.expires_at };
}
