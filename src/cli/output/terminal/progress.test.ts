import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLineProgress } from './progress.js';

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString('utf8')));
  return { stream, text: () => text };
}

describe('line progress (logs, NO_COLOR)', () => {
  it('writes at most one plain line per interval, and keeps writing through a wait with no pages', async () => {
    let now = 1_000_000;
    const out = capture();
    const p = createLineProgress(out.stream, 'snapshots', () => now, 5000, false);
    p.poll();
    p.update({ pages: 1, rows: 1000, total: 10_000 });
    now += 1000;
    p.update({ pages: 2, rows: 2000, total: 10_000 });
    await new Promise((r) => setImmediate(r));
    expect(out.text()).toBe('');
    now += 4000;
    p.update({ pages: 3, rows: 3000, total: 10_000 });
    now += 63_000; // a pacing wait: no page arrives, the timer still reports
    p.poll();
    p.stop();
    await new Promise((r) => setImmediate(r));
    expect(out.text().split('\n')).toEqual([
      'msnap: snapshots: page 3 · 3,000/10,000 rows · 600 rows/s · ETA 12s · 5s',
      'msnap: snapshots: page 3 · 3,000/10,000 rows · 44 rows/s · ETA 159s · 68s',
      '',
    ]);
    expect(out.text()).not.toMatch(/\u001b/);
  });
});
