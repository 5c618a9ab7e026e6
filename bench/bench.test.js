// Unit checks of the bench's own arithmetic: `node --test bench/` (needs `npm run build` for the limiter).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { csvDigest } from './csv-digest.js';
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
