// A key's "last used" time, kept cheaply: the key record every request already reads says when the
// last use was written, so a key used within the last minute costs no write at all; otherwise one
// conditional UPDATE (which also settles concurrent requests: only one of them changes the row).
import type { ApiKeyRecord, Store } from '../store/store.js';

/** A key's last use is written at most this often. */
const KEY_USE_INTERVAL_MS = 60_000;

/** Use after a key authenticated a request: records the use unless one under a minute old is recorded. Never fails the request. */
export function recordKeyUse(store: Store, key: ApiKeyRecord, now: number, log: (line: string) => void): void {
  if (key.lastUsedAt !== null && now - key.lastUsedAt < KEY_USE_INTERVAL_MS) return;
  store.touchKey(key.id, now, KEY_USE_INTERVAL_MS).catch((err: unknown) => {
    log(`msnap serve: could not record the use of key ${key.id}: ${err instanceof Error ? err.message : String(err)}`);
  });
}
