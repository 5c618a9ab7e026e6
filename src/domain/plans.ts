// Plans as one data table, read by the server (limits, windows, key counts) and the client (pacing).
import type { MarketType } from './market.js';

/** Plan names as they appear in bodies (`tier`, `plan`). */
export const PLAN_NAMES = ['builder', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** How many of the most recent markets per coin and type a plan may read; null = all. */
export type DataWindow = Record<MarketType, number> | null;

export interface Plan {
  name: PlanName;
  /** Sliding 60 s window; null = set per account (enterprise). */
  requestsPerMinute: number | null;
  /** Token bucket capacity and refill per second; null = set per account. */
  burstPerSecond: number | null;
  /** Active (not revoked, not expired) keys; null = unlimited. */
  maxActiveKeys: number | null;
  dataWindow: DataWindow;
  /** Open live streams (GET /v1/stream) per key; null = unlimited. */
  maxStreamsPerKey: number | null;
}

/** Use for every plan-dependent decision; never hard-code a plan's number elsewhere. */
export const PLANS: Record<PlanName, Plan> = {
  builder: {
    name: 'builder',
    requestsPerMinute: 250,
    burstPerSecond: 12,
    maxActiveKeys: 3,
    dataWindow: { '5m': 4100, '15m': 1400, '1hr': 350, '4hr': 85, '24hr': 14 },
    maxStreamsPerKey: 2,
  },
  pro: { name: 'pro', requestsPerMinute: 750, burstPerSecond: 40, maxActiveKeys: 10, dataWindow: null, maxStreamsPerKey: 10 },
  enterprise: { name: 'enterprise', requestsPerMinute: null, burstPerSecond: null, maxActiveKeys: null, dataWindow: null, maxStreamsPerKey: null },
};

/** Enterprise limits when an account sets none. */
export const ENTERPRISE_DEFAULT_LIMITS = { requestsPerMinute: 5000, burstPerSecond: 200 } as const;

/** A trial account has builder rights for this long after creation. */
export const TRIAL_LENGTH_MS = 3 * 24 * 60 * 60 * 1000;
/** Keys older than this are flagged for rotation. */
export const KEY_ROTATION_MS = 90 * 24 * 60 * 60 * 1000;

/** Requests without a valid key are limited per client address with these numbers. */
export const ANONYMOUS_LIMITS = { requestsPerMinute: 30, burstPerSecond: 5 } as const;

/** Use to check a --plan value. */
export function parsePlanName(value: string): PlanName | undefined {
  const lower = value.toLowerCase();
  return (PLAN_NAMES as readonly string[]).includes(lower) ? (lower as PlanName) : undefined;
}
