import { describe, expect, it } from 'vitest';
import { HashesBusyError, HashSlots } from './hash-slots.js';

/** A job the test finishes by hand, recording when it started. */
function gate(started: string[], name: string) {
  let open!: () => void;
  const done = new Promise<void>((resolve) => (open = resolve));
  return { work: () => (started.push(name), done.then(() => name)), open };
}

describe('HashSlots', () => {
  it('runs at most `concurrent` at once, queues up to `queued`, refuses beyond, in order', async () => {
    const slots = new HashSlots(2, 1);
    const started: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n) => gate(started, n));
    const ra = slots.run(a!.work);
    const rb = slots.run(b!.work);
    const rc = slots.run(c!.work);
    await expect(slots.run(d!.work)).rejects.toBeInstanceOf(HashesBusyError);
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    a!.open();
    expect(await ra).toBe('a');
    await Promise.resolve();
    expect(started).toEqual(['a', 'b', 'c']);
    b!.open();
    c!.open();
    expect(await Promise.all([rb, rc])).toEqual(['b', 'c']);
    // All slots free again: two run at once.
    const [e, f] = ['e', 'f'].map((n) => gate(started, n));
    const both = Promise.all([slots.run(e!.work), slots.run(f!.work)]);
    await Promise.resolve();
    expect(started.slice(-2)).toEqual(['e', 'f']);
    e!.open();
    f!.open();
    await both;
  });

  it('frees the slot when the work fails', async () => {
    const slots = new HashSlots(1, 0);
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(() => Promise.resolve(7))).toBe(7);
  });
});
