import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLineProgress, progressText } from './progress.js';

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

describe('progress text for backtests', () => {
  it("counts a sweep's runs done of its runs, with a decimal rate and an ETA", () => {
    expect(progressText('backtest', { rows: 12, total: 1000, rowsUnit: 'runs' }, 40_000)).toBe('backtest: 12/1,000 runs · 0.3 runs/s · ETA 3294s');
  });

  it("counts a single run's markets of its markets and the snapshots passed", () => {
    expect(progressText('backtest', { unit: 'market', pages: 3, pagesTotal: 24, rows: 7200, total: 57_600, rowsUnit: 'snapshots' }, 2000)).toBe(
      'backtest: market 3/24 · 7,200/57,600 snapshots · 3,600 snapshots/s · ETA 14s',
    );
  });
});
