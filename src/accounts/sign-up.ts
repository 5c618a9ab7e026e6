// Self-service accounts: the name rule and sign-up itself, which starts the 3-day builder trial
// (the specification's "a 3-day free trial can be started in the dashboard").
import { TRIAL_LENGTH_MS } from '../domain/plans.js';
import type { Account, Store } from '../store/store.js';

/** Names people choose: 3-40 letters, digits, '.', '_' or '-', starting with a letter or digit. */
const ACCOUNT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{2,39}$/;

/** No account name is longer (sign-in refuses longer ones before any work; `serve accounts` and `keys create` too). */
export const MAX_ACCOUNT_NAME_LENGTH = 64;

/** Why a sign-up name is refused, or undefined when it is acceptable. */
export function accountNameProblem(name: string): string | undefined {
  if (ACCOUNT_NAME.test(name)) return undefined;
  return 'The account name must be 3 to 40 letters, digits, ".", "_" or "-", starting with a letter or digit.';
}

/** The outcome of a sign-up: the new account, or the one sentence saying why not. */
export type SignUpResult = { account: Account } | { problem: string };

/**
 * Use for the dashboard's sign-up: a builder account whose trial ends 3 days from `now`, with
 * the given (already hashed) password, in one transaction so two sign-ups cannot share a name.
 */
export function signUp(store: Store, opts: { name: string; passwordHash: string; now: number }): Promise<SignUpResult> {
  return store.transaction(async (tx): Promise<SignUpResult> => {
    if (await tx.getAccount(opts.name)) return { problem: `The account name "${opts.name}" is taken; choose another.` };
    const account = await tx.createAccount({
      name: opts.name,
      plan: 'builder',
      trialEndsAt: opts.now + TRIAL_LENGTH_MS,
      requestsPerMinute: null,
      burstPerSecond: null,
      createdAt: opts.now,
    });
    await tx.accountAuth.setPasswordHash(account.id, opts.passwordHash, opts.now);
    return { account };
  });
}
