// Store.findKeyWithAccount (the one read authentication makes) answers on every backend exactly what
// findKeyByHash and getAccountById answer apart: the same key and account, revoked or expired keys
// as they are, nothing for an unknown hash.
import { expect, it } from 'vitest';
import { eachBackend } from '../../../test/support/each-backend.js';
import { openBackendStore } from '../../server/test-support/backends.js';

const NOW = Date.UTC(2025, 10, 22, 12, 0, 0);

eachBackend('findKeyWithAccount', (backend) => {
  it('reads the key and its account together, as the two reads apart', async () => {
    const store = await openBackendStore(backend);
    const account = await store.createAccount({ name: 'kwa', plan: 'pro', trialEndsAt: NOW + 1000, requestsPerMinute: 7, burstPerSecond: 3, createdAt: NOW });
    const live = await store.createKey(account.id, 'kwa-live', 'msk_live', NOW, 'bot');
    const revoked = await store.createKey(account.id, 'kwa-revoked', 'msk_revo', NOW + 1);
    expect(await store.revokeKey(revoked.id, NOW + 2)).toBe(true);
    await store.touchKey(live.id, NOW + 5, 60_000);
    for (const hash of ['kwa-live', 'kwa-revoked']) {
      const apart = await store.findKeyByHash(hash);
      const together = await store.findKeyWithAccount(hash);
      expect(together).toEqual({ ...apart, account: await store.getAccountById(apart!.accountId) });
    }
    expect((await store.findKeyWithAccount('kwa-live'))!).toMatchObject({ lastUsedAt: NOW + 5, name: 'bot', account });
    expect((await store.findKeyWithAccount('kwa-revoked'))!.revokedAt).toBe(NOW + 2);
    expect(await store.findKeyWithAccount('kwa-unknown')).toBeUndefined();
  });
});
