import { describe, expect, it } from 'vitest';
import { LocalSlots } from './slots.js';

describe('LocalSlots', () => {
  it('caps holds per key; a released hold frees its slot', async () => {
    const slots = new LocalSlots();
    expect(await slots.acquire('k', 'a', 2, 0, 90_000)).toBe(true);
    expect(await slots.acquire('k', 'b', 2, 0, 90_000)).toBe(true);
    expect(await slots.acquire('k', 'c', 2, 0, 90_000)).toBe(false);
    expect(await slots.acquire('other', 'c', 2, 0, 90_000)).toBe(true);
    await slots.release('k', 'a');
    expect(await slots.acquire('k', 'c', 2, 0, 90_000)).toBe(true);
  });

  it('a hold never released frees itself when its lifetime ends; renewed ones stay', async () => {
    const slots = new LocalSlots();
    await slots.acquire('k', 'lost', 2, 0, 90_000);
    await slots.acquire('k', 'open', 2, 0, 90_000);
    await slots.renew('k', ['open'], 60_000, 90_000);
    expect(await slots.acquire('k', 'new', 2, 89_999, 90_000)).toBe(false);
    expect(await slots.acquire('k', 'new', 2, 90_000, 90_000)).toBe(true);
    // 'open' was renewed to 150 s: still held, so the cap holds.
    expect(await slots.acquire('k', 'more', 2, 149_999, 90_000)).toBe(false);
  });

  it('renewing a hold that already expired does not bring it back', async () => {
    const slots = new LocalSlots();
    await slots.acquire('k', 'a', 1, 0, 1000);
    await slots.renew('k', ['a'], 1000, 1000);
    expect(await slots.acquire('k', 'b', 1, 1000, 1000)).toBe(true);
  });
});
