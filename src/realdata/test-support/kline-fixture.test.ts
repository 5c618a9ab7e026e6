import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateKlines, klineDailyZip, klinesCsv, klinesJson } from './kline-fixture.js';
import { klinePricePoints, referencePriceAt } from './reference-snapshots.js';
import { readZipArchive, zipArchive } from './zip-archive.js';

const DAY = Date.UTC(2026, 3, 13);

describe('generateKlines', () => {
  it('writes the 12 REST fields: times as numbers, prices as 8-decimal strings, closeTime = open + interval - 1', () => {
    const ks = generateKlines({ interval: '1s', from: DAY + 500, to: DAY + 3000 });
    expect(ks.map((k) => k[0] - DAY)).toEqual([0, 1000, 2000]);
    const [k] = ks;
    expect(k).toHaveLength(12);
    expect(k![1]).toBe('97123.45000000');
    expect(k![6]).toBe(DAY + 999);
    expect(typeof k![8]).toBe('number');
    expect(k![11]).toBe('0');
    for (const x of ks) {
      expect(Number(x[2])).toBeGreaterThanOrEqual(Math.max(Number(x[1]), Number(x[4])));
      expect(Number(x[3])).toBeLessThanOrEqual(Math.min(Number(x[1]), Number(x[4])));
    }
    expect(ks.slice(1).every((x, i) => x[1] === ks[i]![4])).toBe(true);
    expect(JSON.parse(klinesJson(ks))).toEqual(ks);
    expect(generateKlines({ interval: '1m', from: DAY, to: DAY + 180_000 }).map((x) => x[6] - x[0])).toEqual([59_999, 59_999, 59_999]);
  });
});

describe('bulk CSV and zip', () => {
  const ks = generateKlines({ interval: '1s', from: DAY, to: DAY + 2000 });

  it('writes CSV without header, in ms or µs', () => {
    const ms = klinesCsv(ks).split('\n');
    expect(ms).toHaveLength(3);
    expect(ms[0]!.split(',')).toEqual(ks[0]!.map(String));
    const us = klinesCsv(ks, 'us').split('\n')[0]!.split(',');
    expect(us[0]).toBe(String(DAY * 1000));
    expect(us[6]).toBe(String((DAY + 999) * 1000 + 999));
  });

  it('zips the day as BTCUSDT-1s-YYYY-MM-DD.zip holding the .csv, readable back and by unzip', () => {
    const { name, bytes } = klineDailyZip('BTCUSDT', '1s', DAY + 5, ks);
    expect(name).toBe('BTCUSDT-1s-2026-04-13.zip');
    const entries = readZipArchive(bytes);
    expect(entries.map((e) => e.name)).toEqual(['BTCUSDT-1s-2026-04-13.csv']);
    expect(new TextDecoder().decode(entries[0]!.data)).toBe(klinesCsv(ks));
    const dir = mkdtempSync(join(tmpdir(), 'kline-zip-'));
    try {
      writeFileSync(join(dir, name), bytes);
      let listed: string | undefined;
      try {
        listed = execFileSync('unzip', ['-p', join(dir, name)], { encoding: 'utf8' });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      if (listed !== undefined) expect(listed).toBe(klinesCsv(ks));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps several entries and refuses a corrupted one', () => {
    const zip = zipArchive([
      { name: 'a.csv', data: new TextEncoder().encode('1,2\n') },
      { name: 'b.csv', data: new Uint8Array(0) },
    ]);
    expect(readZipArchive(zip).map((e) => [e.name, e.data.length])).toEqual([['a.csv', 4], ['b.csv', 0]]);
    expect(() => readZipArchive(zip.subarray(0, 20))).toThrow(/not a zip/);
  });

  it('feeds the reference: a kline is known from its closeTime, in ms and µs alike', () => {
    const fromMs = klinePricePoints(ks.map((k) => ({ closeTime: k[6], close: k[4] })));
    const usRows = klinesCsv(ks, 'us').trim().split('\n').map((l) => l.split(','));
    const fromUs = klinePricePoints(usRows.map((r) => ({ closeTime: Number(r[6]), close: r[4]! })));
    // Grid ticks (start + 125k, start on a whole second) never fall on an x999 ms closeTime, where
    // ms (…999) and µs (…999999) files would differ by the last millisecond.
    for (const t of [DAY + 875, DAY + 1000, DAY + 1875, DAY + 2000]) expect(referencePriceAt(fromUs, t)).toBe(referencePriceAt(fromMs, t));
    expect(referencePriceAt(fromMs, DAY + 875)).toBeUndefined();
    expect(referencePriceAt(fromMs, DAY + 1000)).toBe(Number(ks[0]![4]).toFixed(4));
  });
});
