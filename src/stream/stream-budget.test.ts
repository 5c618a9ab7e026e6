import { describe, expect, it } from 'vitest';
import { overBudget, streamLimits } from './stream-budget.js';

const MB = 2 ** 20;
const limits = streamLimits({ totalBytes: 64 * MB, accountBytes: 32 * MB, trialAccountBytes: 8 * MB, trialStreamBytes: 4 * MB });
const stream = (name: string, mb: number, account: number, trial = false) => ({ name, unreadBytes: mb * MB, account, trial });
const closed = (m: Map<{ name: string }, string>) => [...m.keys()].map((s) => s.name).sort();

describe('overBudget', () => {
  it('closes nothing while every bound holds', () => {
    expect(overBudget([stream('a', 10, 1), stream('b', 20, 1), stream('c', 30, 2), stream('t', 3, 3, true)], limits).size).toBe(0);
  });

  it("closes an account's streams furthest behind until the rest fit its budget", () => {
    const out = overBudget([stream('a', 5, 1), stream('b', 20, 1), stream('c', 15, 1), stream('other', 1, 2)], limits);
    expect(closed(out)).toEqual(['b']);
    expect([...out.values()][0]).toMatch(/^too slow: this account's streams hold more than 32 MB unread/);
  });

  it('gives a trial stream and a trial account smaller bounds', () => {
    const out = overBudget([stream('big', 5, 1, true), stream('t1', 3, 2, true), stream('t2', 3, 2, true), stream('t3', 3, 2, true)], limits);
    expect(closed(out)).toEqual(['big', 't1']);
    expect(out.get([...out.keys()].find((s) => s.name === 'big')!)).toMatch(/a trial account's stream/);
  });

  it("past the server's budget closes the streams furthest behind, whoever holds them", () => {
    const out = overBudget([stream('a', 30, 1), stream('b', 25, 2), stream('c', 20, 3), stream('honest', 0.5, 4)], limits);
    expect(closed(out)).toEqual(['a']);
    expect([...out.values()][0]).toMatch(/server's stream buffers \(64 MB\) are full/);
    expect(closed(overBudget([stream('a', 30, 1), stream('b', 30, 2), stream('c', 30, 3), stream('d', 10, 5), stream('honest', 0.5, 4)], limits))).toEqual(['a', 'b']);
  });

  it('every reason fits a WebSocket close frame (123 bytes)', () => {
    const out = overBudget([stream('a', 40, 1), stream('t', 5, 2, true), stream('u', 3, 3, true), stream('v', 3, 3, true), stream('b', 30, 4), stream('c', 30, 5)], limits);
    for (const reason of out.values()) expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
  });
});
