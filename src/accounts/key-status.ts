// What a stored key's state is at a given time, for `keys list` and anything that explains a 401.
import { KEY_ROTATION_MS } from '../domain/plans.js';
import type { Account, ApiKeyRecord } from '../store/store.js';

/** Key states in the order they are checked: revoked beats expired beats an ended trial. */
export type KeyStatus = 'active' | 'revoked' | 'expired' | 'trial ended';

/** Use to tell whether a key may be used at `now`, and if not why. */
export function keyStatus(key: ApiKeyRecord, account: Account, now: number): KeyStatus {
  if (key.revokedAt !== null && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  if (account.trialEndsAt !== null && account.trialEndsAt <= now) return 'trial ended';
  return 'active';
}

/** True when a key is older than the rotation period (90 days) and should be replaced. */
export function needsRotation(key: ApiKeyRecord, now: number): boolean {
  return now - key.createdAt >= KEY_ROTATION_MS;
}
