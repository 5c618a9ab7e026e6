// A queued sweep's id and jobs: stable, so a second submission finds the first one's jobs.
import { describe, expect, it } from 'vitest';
import { marketsFingerprint } from './fingerprint.js';
import { sweepId, sweepJobs, type QueuedSweep } from './sweep-job.js';

const base: Omit<QueuedSweep, 'id'> = {
  strategy: { file: 'cheap-up.json', text: '{"side":"up"}' },
  selection: 'BTC 5m --last 2',
  marketIds: ['a', 'b'],
  range: {},
  params: { cash: 500 },
  fingerprint: marketsFingerprint([], {}),
};
const items = [0, 1, 2, 3, 4].map((index) => ({ index, sets: [`size=${index + 1}`] }));

describe('sweepId and sweepJobs', () => {
  it('names the same sweep alike, and any change to what decides its rows otherwise', () => {
    const id = sweepId(base, items, 1);
    expect(id).toMatch(/^sweep-[0-9a-f]{16}$/);
    expect(sweepId({ ...base }, items.map((i) => ({ ...i })), 1)).toBe(id);
    expect(sweepId({ ...base, params: { cash: 501 } }, items, 1)).not.toBe(id);
    expect(sweepId({ ...base, strategy: { ...base.strategy, text: '{"side":"down"}' } }, items, 1)).not.toBe(id);
    expect(sweepId(base, items.slice(1), 1)).not.toBe(id);
    expect(sweepId(base, items, 2)).not.toBe(id);
  });

  it('cuts the combinations into jobs in order, each id the sweep id and its first index', () => {
    const sweep = { id: sweepId(base, items, 2), ...base };
    const jobs = sweepJobs(sweep, items, 2);
    expect(jobs.map((j) => j.id)).toEqual([`${sweep.id}.0`, `${sweep.id}.2`, `${sweep.id}.4`]);
    expect(jobs.map((j) => j.data.items.map((i) => i.index))).toEqual([[0, 1], [2, 3], [4]]);
    expect(jobs.every((j) => j.data.sweep === sweep)).toBe(true);
  });
});
