// Creating keys and accounts: the plan rules (trial, enterprise limits, active-key caps) live here
// so the CLI and `serve --demo` apply the same ones.
import { UsageError } from '../errors.js';
import { ENTERPRISE_DEFAULT_LIMITS, PLANS, TRIAL_LENGTH_MS, type PlanName } from '../domain/plans.js';
import type { Account, ApiKeyRecord, Store } from '../store/store.js';
import { generateApiKey, hashApiKey, keyPrefix } from './api-key.js';

/** What a key is created for; plan/trial/limits matter only when the account is new (or to check it). */
export interface CreateKeyOptions {
  account: string;
  plan?: PlanName;
  trial?: boolean;
  rpm?: number;
  burst?: number;
  /** The key's optional name, as parseKeyName returns it. */
  name?: string | null;
  now: number;
}

/** The key (shown once, never stored), its stored record, and the account it belongs to. */
export interface CreatedKey {
  key: string;
  record: ApiKeyRecord;
  account: Account;
  accountCreated: boolean;
}

/** Thrown when the account already has its plan's most active keys; `planMessage` is the sentence without the CLI's hint. */
export class KeyLimitError extends UsageError {
  constructor(readonly planMessage: string) {
    super(`${planMessage}; revoke one first (msnap serve keys revoke ID)`);
  }
}

/** Use to create a key, creating its account on first use; throws UsageError for any rule it breaks. */
export function createApiKey(store: Store, opts: CreateKeyOptions): Promise<CreatedKey> {
  // Count-then-insert must not interleave with another process creating keys for the account.
  return store.transaction((tx) => createInTransaction(tx, opts));
}

async function createInTransaction(store: Store, opts: CreateKeyOptions): Promise<CreatedKey> {
  const name = opts.account.trim();
  if (name === '') throw new UsageError('--account must not be empty');
  if (opts.trial && opts.plan !== undefined && opts.plan !== 'builder') {
    throw new UsageError(`--trial gives builder rights; it cannot be combined with --plan ${opts.plan}`);
  }
  const wantsLimits = opts.rpm !== undefined || opts.burst !== undefined;
  let account = await store.getAccount(name);
  let accountCreated = false;
  if (!account) {
    if (opts.plan === undefined && !opts.trial) {
      throw new UsageError(`account "${name}" does not exist yet: give --plan builder|pro|enterprise or --trial to create it`);
    }
    const plan: PlanName = opts.trial ? 'builder' : opts.plan!;
    if (wantsLimits && plan !== 'enterprise') {
      throw new UsageError(`--rpm and --burst are set per account only on the enterprise plan (not ${plan})`);
    }
    const enterprise = plan === 'enterprise';
    account = await store.createAccount({
      name,
      plan,
      trialEndsAt: opts.trial ? opts.now + TRIAL_LENGTH_MS : null,
      requestsPerMinute: enterprise ? (opts.rpm ?? ENTERPRISE_DEFAULT_LIMITS.requestsPerMinute) : null,
      burstPerSecond: enterprise ? (opts.burst ?? ENTERPRISE_DEFAULT_LIMITS.burstPerSecond) : null,
      createdAt: opts.now,
    });
    accountCreated = true;
  } else {
    // An existing account keeps its plan: a different one asked for is a mistake worth saying.
    if (opts.plan !== undefined && opts.plan !== account.plan) {
      throw new UsageError(`account "${name}" is on the ${account.plan} plan, not ${opts.plan}`);
    }
    if (opts.trial && account.trialEndsAt === null) {
      throw new UsageError(`account "${name}" is a paid ${account.plan} account; --trial applies only to new accounts`);
    }
    if (wantsLimits) {
      throw new UsageError(`account "${name}" exists: --rpm and --burst apply only when an account is created`);
    }
  }
  const max = PLANS[account.plan].maxActiveKeys;
  if (max !== null) {
    const active = await store.countActiveKeys(account.id, opts.now);
    if (active >= max) {
      throw new KeyLimitError(`account "${name}" already has ${active} active keys, the most the ${account.plan} plan allows (${max})`);
    }
  }
  const key = generateApiKey();
  const record = await store.createKey(account.id, hashApiKey(key), keyPrefix(key), opts.now, opts.name ?? null);
  return { key, record, account, accountCreated };
}
