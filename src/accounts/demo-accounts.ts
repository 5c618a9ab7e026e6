// The accounts `msnap serve --demo` sets up: one builder and one pro account, each with a key the
// first time (a key is shown only once, so an account that has an active key gets no second one).
import type { PlanName } from '../domain/plans.js';
import type { Store } from '../store/store.js';
import { createApiKey } from './create-key.js';

/** The demo accounts `--demo` gives a key each. */
export const DEMO_ACCOUNTS: readonly { account: string; plan: PlanName }[] = [
  { account: 'demo-builder', plan: 'builder' },
  { account: 'demo-pro', plan: 'pro' },
];

/** What ensureDemoKeys did for one demo account: `key` is the new key, undefined when it already had one. */
export interface DemoKey {
  account: string;
  plan: PlanName;
  key: string | undefined;
}

/** Use for `serve --demo`: creates each demo account's key unless it has an active one, in DEMO_ACCOUNTS order. */
export async function ensureDemoKeys(store: Store, now: number): Promise<DemoKey[]> {
  const made: DemoKey[] = [];
  for (const { account, plan } of DEMO_ACCOUNTS) {
    const existing = await store.getAccount(account);
    if (existing && (await store.countActiveKeys(existing.id, now)) > 0) made.push({ account, plan, key: undefined });
    else made.push({ account, plan, key: (await createApiKey(store, { account, plan, now })).key });
  }
  return made;
}
