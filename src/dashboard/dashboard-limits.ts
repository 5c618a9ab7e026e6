// The dashboard's own rate limits, charged to the server's limiter (in this process, or in Redis
// when instances share one, so two instances never allow twice the attempts). Password guessing
// is throttled per client address (one machine trying many accounts) and per account name and
// address (one machine hammering one account): a stranger's wrong passwords from elsewhere never
// lock the owner out. Every attempt is charged before the password is checked, so a refused one
// costs no scrypt work, and a refused one creates no limiter state. Sign-ups are also limited per
// address per day; market pages and chart data per account, so the browser is not a way around
// the API's per-key limits.
import type { Decision, LimitConfig } from '../ratelimit/key-limiter.js';
import { LocalLimiter, type SharedLimiter } from '../ratelimit/shared-limiter.js';
import { DEFAULT_SIGNUPS_PER_DAY } from './signup-default.js';

/** Sign-in and sign-up attempts per client address. */
export const ADDRESS_ATTEMPTS: LimitConfig = { perMinute: 20, burst: 10 };
/** Sign-in attempts per account name from one address (known or not: the answer must not tell which). */
export const ACCOUNT_ATTEMPTS: LimitConfig = { perMinute: 5, burst: 5 };
/** Market list, market pages and chart data per signed-in account. */
export const DATA_PAGES: LimitConfig = { perMinute: 120, burst: 20 };
/** Sign-ups one address may make per day unless `serve --signups-per-day` says otherwise. */
export { DEFAULT_SIGNUPS_PER_DAY };
const DAY_MS = 24 * 60 * 60 * 1000;

/** Use one per dashboard, over the API's limiter. */
export class DashboardLimits {
  private readonly signups: LimitConfig;

  constructor(
    private readonly limiter: SharedLimiter = new LocalLimiter(),
    signupsPerDay = DEFAULT_SIGNUPS_PER_DAY,
  ) {
    this.signups = { perMinute: Math.max(1, signupsPerDay), burst: Math.max(1, signupsPerDay), windowMs: DAY_MS };
  }

  /** Check and charge one attempt of `address` (any sign-in or sign-up form); the refusal when spent. */
  async takeAddress(address: string, now: number): Promise<Decision | undefined> {
    const d = await this.limiter.take(`d:a:${address}`, ADDRESS_ATTEMPTS, now);
    return d.admitted ? undefined : d;
  }

  /** Check and charge one sign-in attempt: the address first, then the name from that address; the refusal when either is spent. */
  async takeSignIn(address: string, accountName: string, now: number): Promise<Decision | undefined> {
    const byAddress = await this.takeAddress(address, now);
    if (byAddress) return byAddress;
    // Names are case-insensitive and capped in length by the caller, so this key is bounded too.
    const byName = await this.limiter.take(`d:n:${address} ${accountName.toLowerCase()}`, ACCOUNT_ATTEMPTS, now);
    return byName.admitted ? undefined : byName;
  }

  /** Check and charge one sign-up attempt of `address`, refused too when its sign-ups of the day are spent. */
  async takeSignUp(address: string, now: number): Promise<Decision | undefined> {
    const byAddress = await this.takeAddress(address, now);
    if (byAddress) return byAddress;
    const d = await this.limiter.peek(`d:s:${address}`, this.signups, now);
    return d.admitted ? undefined : d;
  }

  /** Charge one completed sign-up of `address` to its daily allowance. */
  async chargeSignUp(address: string, now: number): Promise<void> {
    await this.limiter.take(`d:s:${address}`, this.signups, now);
  }

  /** Check and charge one market page or chart of `accountId`; the refusal when spent. */
  async takeData(accountId: number, now: number): Promise<Decision | undefined> {
    const d = await this.limiter.take(`d:m:${accountId}`, DATA_PAGES, now);
    return d.admitted ? undefined : d;
  }
}
