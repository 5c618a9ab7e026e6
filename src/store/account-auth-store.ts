// What the dashboard stores beside the API's accounts and keys: password hashes, browser
// sessions, and the account changes an operator makes (plan). SQLite implements it
// (sqlite/account-auth-sqlite.ts) over the same database file as the Store.
import type { PlanName } from '../domain/plans.js';
import type { Account, ApiKeyRecord } from './records.js';

/** One signed-in browser: only the sha256 of its cookie token is stored. */
export interface SessionRecord {
  tokenHash: string;
  accountId: number;
  /** The session's CSRF token, echoed by every form of a signed-in page. */
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

/** A plan change: a paid plan clears the trial; enterprise may carry its own limits. */
export interface PlanChange {
  plan: PlanName;
  trialEndsAt: number | null;
  requestsPerMinute: number | null;
  burstPerSecond: number | null;
}

/** Use for everything the dashboard and `serve accounts` persist that the API never reads. */
export interface AccountAuthStore {
  /** The account's scrypt hash (see accounts/password.ts), or undefined when it cannot sign in. */
  passwordHash(accountId: number): Promise<string | undefined>;
  /** Sets or replaces the hash; existing sessions of the account are ended. */
  setPasswordHash(accountId: number, hash: string, now: number): Promise<void>;
  createSession(s: SessionRecord): Promise<void>;
  /** The session with this token hash, or undefined when unknown or expired at `now` (expired ones are removed). */
  findSession(tokenHash: string, now: number): Promise<SessionRecord | undefined>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Changes an account's plan; undefined when there is no such account. */
  setPlan(accountId: number, change: PlanChange): Promise<Account | undefined>;
  /** The account's keys, oldest first. */
  keysOf(accountId: number): Promise<ApiKeyRecord[]>;
  /** Every account, by name, with whether it can sign in. */
  listAccounts(): Promise<(Account & { hasPassword: boolean })[]>;
}
