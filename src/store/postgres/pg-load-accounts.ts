// The account side of a load: accounts merge by name (one already in PostgreSQL stays as it is),
// keys by hash, a password only where the account has none, sessions by token hash.
import type postgres from 'postgres';
import type { StoreDumpSource } from '../core/store-dump.js';
import { copyInto } from './pg-copy.js';

/** Use inside the load's transaction, after the markets. */
export async function loadAccounts(
  tx: postgres.ReservedSql,
  dump: StoreDumpSource,
): Promise<{ accountsAdded: number; keysAdded: number; sessionsAdded: number }> {
  await tx
    .unsafe(
      `CREATE TEMP TABLE load_accounts (src bigint, name text COLLATE "C", plan text, trial_ends_at bigint, rpm bigint,
         burst bigint, created_at bigint, dst bigint) ON COMMIT DROP;
       CREATE TEMP TABLE load_keys (src bigint, account bigint, key_hash text, prefix text, created_at bigint,
         revoked_at bigint, expires_at bigint, name text, last_used_at bigint) ON COMMIT DROP;
       CREATE TEMP TABLE load_passwords (account bigint, hash text, updated_at bigint) ON COMMIT DROP;
       CREATE TEMP TABLE load_sessions (token_hash text, account bigint, csrf text, created_at bigint, expires_at bigint) ON COMMIT DROP`,
    )
    .simple();
  const same = (r: readonly unknown[]) => r as (string | number | null)[];
  await copyInto(tx, 'load_accounts', ['src', 'name', 'plan', 'trial_ends_at', 'rpm', 'burst', 'created_at'], dump.accounts.batches(), same);
  await copyInto(tx, 'load_keys', ['src', 'account', 'key_hash', 'prefix', 'created_at', 'revoked_at', 'expires_at', 'name', 'last_used_at'], dump.keys.batches(), same);
  await copyInto(tx, 'load_passwords', ['account', 'hash', 'updated_at'], dump.passwords.batches(), same);
  await copyInto(tx, 'load_sessions', ['token_hash', 'account', 'csrf', 'created_at', 'expires_at'], dump.sessions.batches(), same);

  const accounts = await tx.unsafe(`INSERT INTO accounts (name, plan, trial_ends_at, rpm, burst, created_at)
    SELECT name, plan, trial_ends_at, rpm, burst, created_at FROM load_accounts ORDER BY src ON CONFLICT (name) DO NOTHING`);
  await tx.unsafe('UPDATE load_accounts la SET dst = a.id FROM accounts a WHERE a.name = la.name');
  const keys = await tx.unsafe(`INSERT INTO api_keys (account_id, key_hash, prefix, created_at, revoked_at, expires_at, name, last_used_at)
    SELECT la.dst, k.key_hash, k.prefix, k.created_at, k.revoked_at, k.expires_at, k.name, k.last_used_at
    FROM load_keys k JOIN load_accounts la ON la.src = k.account ORDER BY k.src ON CONFLICT (key_hash) DO NOTHING`);
  await tx.unsafe(`INSERT INTO account_passwords (account_id, hash, updated_at)
    SELECT la.dst, p.hash, p.updated_at FROM load_passwords p JOIN load_accounts la ON la.src = p.account
    ON CONFLICT (account_id) DO NOTHING`);
  const sessions = await tx.unsafe(`INSERT INTO sessions (token_hash, account_id, csrf, created_at, expires_at)
    SELECT s.token_hash, la.dst, s.csrf, s.created_at, s.expires_at FROM load_sessions s JOIN load_accounts la ON la.src = s.account
    ON CONFLICT (token_hash) DO NOTHING`);
  return { accountsAdded: accounts.count, keysAdded: keys.count, sessionsAdded: sessions.count };
}
