// The dashboard's own rate limits. Password guessing is throttled twice: per client address (one
// machine trying many accounts) and per account name (many machines trying one account); every
// attempt is charged, right or wrong, before the password is checked, so a refused attempt costs
// no scrypt work either. Market pages and chart data are limited per account, so the browser
// is not a way around the API's per-key limits.
import { LimiterRegistry, type Decision, type LimitConfig } from '../ratelimit/key-limiter.js';

/** Sign-in and sign-up attempts per client address. */
export const ADDRESS_ATTEMPTS: LimitConfig = { perMinute: 20, burst: 10 };
/** Sign-in attempts per account name (known or not: the answer must not tell which). */
export const ACCOUNT_ATTEMPTS: LimitConfig = { perMinute: 5, burst: 5 };
/** Market list, market pages and chart data per signed-in account. */
export const DATA_PAGES: LimitConfig = { perMinute: 120, burst: 20 };

/** Use one per dashboard. */
export class DashboardLimits {
  private readonly addresses = new LimiterRegistry<string>();
  private readonly accounts = new LimiterRegistry<string>();
  private readonly data = new LimiterRegistry<number>();

  /** Check and charge one sign-in (or, without a name, sign-up) attempt: both limiters or neither; the refusal when either is spent. */
  takeAttempt(address: string, accountName: string | undefined, now: number): Decision | undefined {
    const byAddress = this.addresses.get(address, ADDRESS_ATTEMPTS, now);
    const byAccount = accountName === undefined ? undefined : this.accounts.get(accountName.toLowerCase(), ACCOUNT_ATTEMPTS, now);
    const a = byAddress.peek(now);
    if (!a.admitted) return a;
    const b = byAccount?.peek(now);
    if (b && !b.admitted) return b;
    byAddress.take(now);
    byAccount?.take(now);
    return undefined;
  }

  /** Check and charge one market page or chart of `accountId`; the refusal when spent. */
  takeData(accountId: number, now: number): Decision | undefined {
    const d = this.data.get(accountId, DATA_PAGES, now).take(now);
    return d.admitted ? undefined : d;
  }
}
