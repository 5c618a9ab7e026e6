// The account and key records every store returns: the Store's and the dashboard's
// AccountAuthStore's common vocabulary, in a file of their own so neither port imports the other.
import type { PlanName } from '../domain/plans.js';

/** An account as every store returns it. */
export interface Account {
  id: number;
  name: string;
  plan: PlanName;
  /** Epoch ms when the trial ends; null for a paid account. */
  trialEndsAt: number | null;
  /** Per-account limits (enterprise); null = the plan's. */
  requestsPerMinute: number | null;
  burstPerSecond: number | null;
  createdAt: number;
}

/** An API key as every store returns it (never the key itself). */
export interface ApiKeyRecord {
  id: number;
  accountId: number;
  /** A short non-secret prefix for display, e.g. `msk_3f9a`. */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
  expiresAt: number | null;
  /** What its owner called it (`serve keys create --name`, the dashboard); null when unnamed. */
  name: string | null;
  /** When it last authenticated a request (epoch ms), to the minute at best: written at most once a minute. */
  lastUsedAt: number | null;
  /** sha256 hex of the key, when the backend returns it: the server re-checks it in constant time. */
  keyHash?: string;
}
