// Password guessing is throttled twice: per client address (one machine trying many accounts)
// and per account name (many machines trying one account). Every attempt is charged, right or
// wrong, before the password is checked, so a refused attempt costs no scrypt work either.
import { LimiterRegistry, type Decision, type LimitConfig } from '../ratelimit/key-limiter.js';

/** Sign-in and sign-up attempts per client address. */
export const ADDRESS_ATTEMPTS: LimitConfig = { perMinute: 20, burst: 10 };
/** Sign-in attempts per account name (known or not: the answer must not tell which). */
export const ACCOUNT_ATTEMPTS: LimitConfig = { perMinute: 5, burst: 5 };

/** Use one per dashboard; `take` charges both limiters or neither. */
export class SignInLimits {
  private readonly addresses = new LimiterRegistry<string>();
  private readonly accounts = new LimiterRegistry<string>();

  /** Check and charge one attempt; the refusing decision (for Retry-After) when either limit is spent. */
  take(address: string, accountName: string | undefined, now: number): Decision | undefined {
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
}
