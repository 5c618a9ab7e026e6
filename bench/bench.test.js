// Unit checks of the bench's own arithmetic: `node --test bench/` (needs `npm run build` for the limiter).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { csvDigest } from './csv-digest.js';
import { formatDuration, partialPath, secondsLeft } from './harness.js';
import { pacingMinimumMs } from './pacing-minimum.js';
import { judge } from './targets.js';

test('pacing minimum: a full burst costs nothing, the next request waits for one token', () => {
  assert.equal(pacingMinimumMs(12, { perMinute: 250, burst: 12 }), 0);
  assert.equal(pacingMinimumMs(13, { perMinute: 250, burst: 12 }), Math.ceil(1000 / 12));
});

test('pacing minimum: burst-bound runs go at burst/s after the first burst', () => {
  // 10 at once, then 140 more at 10/s.
  assert.equal(pacingMinimumMs(150, { perMinute: 600, burst: 10 }), 14_000);
});

test('pacing minimum: the minute window holds request 251 on builder until the first ones leave it', () => {
  const t250 = pacingMinimumMs(250, { perMinute: 250, burst: 12 });
  const t251 = pacingMinimumMs(251, { perMinute: 250, burst: 12 });
  assert.ok(t250 < 20_000, `250th at ${t250}`);
  assert.equal(t251, 60_000);
  // Then 12 more at once (the bucket refilled meanwhile) and 12/s after that: 400 by ~71.5 s.
  const t400 = pacingMinimumMs(400, { perMinute: 250, burst: 12 });
  assert.ok(t400 > 71_000 && t400 < 72_000, `400th at ${t400}`);
});

test('judge: upper and lower bounds, and how far off a miss is', () => {
  assert.deepEqual(judge({ value: 1.04, max: 1.05 }), { pass: true, miss: 0 });
  assert.equal(judge({ value: 1.5, max: 1.2 }).pass, false);
  assert.ok(Math.abs(judge({ value: 1.5, max: 1.2 }).miss - 0.25) < 1e-12);
  assert.ok(Math.abs(judge({ value: 0.6, min: 0.8 }).miss - 0.25) < 1e-12);
  assert.equal(judge({ value: 1, exactly: 0 }).pass, false);
  assert.equal(judge({ value: NaN, min: 1 }).pass, false);
});

test('csvDigest: same rows in another column order, quoting and number format hash the same', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'msnap-bench-test-'));
  try {
    const a = path.join(dir, 'a.csv');
    const b = path.join(dir, 'b.csv');
    const c = path.join(dir, 'c.csv');
    writeFileSync(a, 'id,market_id,time,price,price_up,price_down\n1,btc-x,1000,97.1,0.5,0.5\n2,btc-x,1125,97.2,0.51,0.49\n');
    writeFileSync(b, 'time,"id",price,market_id,price_up,price_down\r\n1000,1,97.10,"btc-x",0.5,0.50\r\n1125,2,97.20,btc-x,0.51,0.49\r\n');
    writeFileSync(c, 'id,market_id,time,price,price_up,price_down\n1,btc-x,1000,97.1,0.5,0.5\n2,btc-x,1125,97.3,0.51,0.49\n');
    const [da, db, dc] = await Promise.all([csvDigest(a), csvDigest(b), csvDigest(c)]);
    assert.equal(da.rows, 2);
    assert.equal(da.hash, db.hash);
    assert.notEqual(da.hash, dc.hash);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('refusingLimit: minute slots left means the burst refused; none left, the minute', async () => {
  const { refusingLimit } = await import('./request-log-proxy.js');
  assert.equal(refusingLimit({ 'x-ratelimit-remaining': '3', 'x-ratelimit-limit': '250' }), 'burst (per second)');
  assert.equal(refusingLimit({ 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '250' }), 'minute (250/min)');
  assert.equal(refusingLimit({}), 'unknown');
});

test('time left: the rest of the expected seconds, scaled by how the finished figures went', () => {
  const expected = { 1: 10, 2: 20, 3: 30, 4: 40 };
  assert.equal(secondsLeft({ expected, done: [], remaining: [1, 2, 3, 4] }), 100);
  // Figures 1 and 2 took twice as long as expected: so should the rest.
  assert.equal(secondsLeft({ expected, done: [{ id: 1, seconds: 20 }, { id: 2, seconds: 40 }], remaining: [3, 4] }), 140);
  assert.equal(formatDuration(754), '12 min 34 s');
  assert.equal(formatDuration(3725), '1 h 02 min');
  assert.equal(partialPath('/x/BENCHMARKS.md'), '/x/BENCHMARKS.partial.md');
});

/** What the report header needs of a machine, for the harness tests. */
const FAKE_MACHINE = { date: new Date().toISOString(), cores: 2, cpuModel: 'fake', memoryGb: 1, node: process.version, platform: 'test', loadAverage: '0', source: 'test' };

// A run of three fake figures through the real harness: the third never ends, the run is killed
// during it (SIGKILL, so nothing runs afterwards; then SIGTERM, which says it stopped), and the
// partial report beside the final one keeps figures 1 and 2 with their wall times and names 3 as missing.
for (const signal of ['SIGKILL', 'SIGTERM']) {
  test(`an interrupted run (${signal}) keeps the finished figures in the partial report`, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'msnap-bench-harness-'));
    try {
      const out = path.join(dir, 'REPORT.md');
      const script = path.join(dir, 'fake-run.js');
      const harnessUrl = new URL('./harness.js', import.meta.url).href;
      writeFileSync(
        script,
        `import { createHarness } from ${JSON.stringify(harnessUrl)};
const row = (name, value) => ({ name, value, target: '>= 1', verdict: { pass: value >= 1, miss: 0 } });
const steps = [
  { id: 1, title: 'Fast figure', run: async () => ({ title: 'Fast figure', rows: [row('One: ratio', 1.5)] }) },
  { id: 2, title: 'Second figure', run: async () => { await new Promise((r) => setTimeout(r, 50)); return { title: 'Second figure', rows: [row('Two: ratio', 2.5)] }; } },
  { id: 3, title: 'Endless figure', run: () => new Promise(() => { setInterval(() => {}, 1000); }) },
];
const machine = ${JSON.stringify(FAKE_MACHINE)};
const harness = createHarness({ steps, out: ${JSON.stringify(out)}, expected: { 1: 1, 2: 1, 3: 1 }, log: () => {}, report: { machine, mode: 'test', invocation: 'fake' } });
process.on('SIGTERM', () => { harness.interrupt('SIGTERM'); process.exit(143); });
await harness.runAll();
harness.finish();
`,
      );
      const child = spawn(process.execPath, [script], { stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, sig })));
      const partial = partialPath(out);
      const deadline = Date.now() + 10_000;
      // Figure 3 has started once the partial file names it as the figure being measured.
      while (!(existsSync(partial) && readFileSync(partial, 'utf8').includes('figure 3 started'))) {
        assert.ok(Date.now() < deadline, 'the partial report never reached figure 3');
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill(signal);
      await exited;
      const text = readFileSync(partial, 'utf8');
      assert.ok(!existsSync(out), 'no final report from an interrupted run');
      assert.match(text, /Partial report/);
      assert.match(text, /missing: figure\(s\) 3\b/);
      assert.match(text, /## 1\. Fast figure/);
      assert.match(text, /## 2\. Second figure/);
      assert.match(text, /\| 2 \| Two: ratio \| 2\.500 \| >= 1 \| pass \|/);
      assert.match(text, /\| 2 \| Second figure \| \d+\.\d s \|/);
      assert.doesNotMatch(text, /## 3\./);
      if (signal === 'SIGTERM') assert.match(text, /stopped during figure 3/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a finished run writes the final report and removes the partial one', async () => {
  const { createHarness } = await import('./harness.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'msnap-bench-harness-'));
  try {
    const out = path.join(dir, 'REPORT.md');
    const machine = FAKE_MACHINE;
    const steps = [
      { id: 1, title: 'Ok', run: async () => ({ title: 'Ok', rows: [{ name: 'Ok: value', value: 1 }] }) },
      { id: 2, title: 'Broken', run: async () => { throw new Error('boom'); } },
    ];
    const harness = createHarness({ steps, out, log: () => {}, report: { machine, mode: 'test', invocation: 'fake' } });
    const { figures, times } = await harness.runAll();
    assert.ok(existsSync(partialPath(out)));
    harness.finish();
    assert.ok(!existsSync(partialPath(out)));
    assert.deepEqual(figures.map((f) => [f.id, Boolean(f.error)]), [[1, false], [2, true]]);
    assert.deepEqual(times.map((t) => t.id), [1, 2]);
    const text = readFileSync(out, 'utf8');
    assert.doesNotMatch(text, /Partial report/);
    assert.match(text, /## Wall time per figure/);
    assert.match(text, /\| 2 \| Broken \| not measured \| \| ERROR \|/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
