import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { DAY, klineCsv, klineFields, klineJson, klineRun } from '../test-support/binance-klines.js';
import { FAST_RETRY, localHttp, type LocalHttp } from '../test-support/local-http.js';
import { readKlines, type ReadKlinesOptions } from './kline-file.js';
import { mergeKlines, priceAt } from './kline-series.js';

const dir = mkdtempSync(join(tmpdir(), 'msnap-klines-'));
function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}
/** A daily bulk file as Binance serves it: one CSV inside, deflated (zipped by fflate, not by the reader's author). */
function dailyZip(name: string, csv: string, entry = name.replace(/\.zip$/, '.csv')): string {
  return file(name, zipSync({ [entry]: strToU8(csv) }));
}

let server: LocalHttp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(source: string, opts: ReadKlinesOptions = {}): Promise<string> {
  const err = await readKlines(source, opts).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  expect((err as Error).message).not.toContain('\n');
  return (err as Error).message;
}

describe('readKlines', () => {
  it('reads a daily zip of CSV, its symbol and interval from the name', async () => {
    const path = dailyZip('BTCUSDT-1s-2026-04-13.zip', klineCsv(klineRun(DAY, 7_200)));
    const s = await readKlines(path, { expectSymbol: 'BTCUSDT' });
    expect(s).toMatchObject({ symbol: 'BTCUSDT', interval: '1s' });
    expect(s.closeTimes.length).toBe(7_200);
    expect(priceAt(s, DAY + 999)).toBe(70_000);
    expect(priceAt(s, DAY + 7_200_000 - 1)).toBe(70_000 + 7_199);
  });

  it('reads a Zip64 archive another writer made (Info-ZIP, fixtures/realdata/zip64)', async () => {
    const path = new URL('../../../fixtures/realdata/zip64/BTCUSDT-1s-2026-04-13.zip', import.meta.url).pathname;
    const s = await readKlines(path);
    expect(s).toMatchObject({ symbol: 'BTCUSDT', interval: '1s' });
    expect([...s.closeTimes]).toEqual([DAY + 999, DAY + 1999, DAY + 2999]);
    expect([...s.closes]).toEqual([70000.5, 70001.75, 70002.25]);
  });

  it('reads plain CSV with a header line and CRLF, and tells the interval from the klines where the name does not', async () => {
    const rows = [0, 1, 2].map((i) => klineFields(DAY + i * 60_000, 100 + i, 60_000));
    const header = 'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore';
    const s = await readKlines(file('prices.csv', [header, ...rows.map((r) => r.join(','))].join('\r\n')));
    expect(s).toMatchObject({ symbol: null, interval: '1m' });
    expect([...s.closes]).toEqual([100, 101, 102]);
    expect(priceAt(s, DAY + 60_000 - 1)).toBe(100);
  });

  it('reads a saved REST answer (JSON arrays, prices as strings)', async () => {
    const s = await readKlines(file('ETHUSDT-1m-2026-04.json.csv', JSON.stringify(klineJson(klineRun(DAY, 3)))));
    expect([...s.closes]).toEqual([70_000, 70_001, 70_002]);
    expect((await readKlines(file('rest.json', JSON.stringify(klineJson(klineRun(DAY, 2)))))).closeTimes.length).toBe(2);
  });

  it('reads times in µs as the same ms a ms file gives', async () => {
    const micro = await readKlines(dailyZip('SOLUSDT-1s-2026-04-13.zip', klineCsv(klineRun(DAY, 5, true))));
    const milli = await readKlines(file('SOLUSDT-1s-2026-04-13.csv', klineCsv(klineRun(DAY, 5))));
    expect([...micro.closeTimes]).toEqual([...milli.closeTimes]);
    expect(micro.closeTimes[0]).toBe(DAY + 999);
    expect(micro.interval).toBe('1s');
  });

  it('adds nothing when the same file or an overlapping one is read again', async () => {
    const a = dailyZip('BTCUSDT-1s-2026-04-13.zip', klineCsv(klineRun(DAY, 100)));
    const b = file('BTCUSDT-1s-2026-04-13.csv', klineCsv(klineRun(DAY + 50_000, 100)));
    const once = await readKlines(a);
    const all = mergeKlines([once, await readKlines(a), await readKlines(b)]);
    expect(all.closeTimes.length).toBe(150);
    expect(mergeKlines([all, once])).toEqual(all);
  });

  it('reads a URL', async () => {
    const bytes = readFileSync(dailyZip('BTCUSDT-1s-2026-04-14.zip', klineCsv(klineRun(DAY, 10))));
    server = await localHttp((_req, res) => res.end(bytes));
    const s = await readKlines(`${server.base}/data/spot/daily/klines/BTCUSDT/1s/BTCUSDT-1s-2026-04-14.zip`, FAST_RETRY);
    expect(s).toMatchObject({ symbol: 'BTCUSDT', interval: '1s' });
    expect(s.closeTimes.length).toBe(10);
  });

  it('refuses a file named for another symbol than expected, by its name or its entry', async () => {
    const eth = dailyZip('ETHUSDT-1s-2026-04-13.zip', klineCsv(klineRun(DAY, 2)));
    expect(await failure(eth, { expectSymbol: 'BTCUSDT' })).toBe(`${eth}: BTC prices expected, ETHUSDT-1s-2026-04-13.zip is ETHUSDT`);
    const neutral = dailyZip('prices.zip', klineCsv(klineRun(DAY, 2)), 'SOLUSDT-1s-2026-04-13.csv');
    expect(await failure(neutral, { expectSymbol: 'ETHUSDT' })).toBe(`${neutral}: ETH prices expected, SOLUSDT-1s-2026-04-13.csv is SOLUSDT`);
  });

  it('refuses what is not klines, with one line naming the file', async () => {
    const rows = klineRun(DAY, 3);
    const short = file('short.csv', klineCsv([rows[0]!, rows[1]!.slice(0, 11)]));
    expect(await failure(short)).toBe(`${short}: line 2: 11 columns, a Binance kline has 12: not a kline file`);
    const text = file('text.csv', klineCsv([rows[0]!, [...rows[1]!.slice(0, 4), 'abc', ...rows[1]!.slice(5)]]));
    expect(await failure(text)).toBe(`${text}: line 2: close "abc" is not a number`);
    const empty = file('BTCUSDT-1s-2026-04-15.zip', '');
    expect(await failure(empty)).toBe(`${empty}: empty file, expected Binance klines (zip, CSV or JSON)`);
    const whole = readFileSync(dailyZip('BTCUSDT-1s-2026-04-16.zip', klineCsv(klineRun(DAY, 1000))));
    const cut = file('cut.zip', whole.subarray(0, whole.length - 40));
    expect(await failure(cut)).toBe(`${cut}: truncated or damaged zip (its central directory is missing or cut short)`);
    const binary = file('x.bin', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]));
    expect(await failure(binary)).toBe(`${binary}: not a Binance kline file (zip, CSV or JSON): binary content`);
    const error = file('error.json', '{"code":-1121,"msg":"Invalid symbol."}');
    expect(await failure(error)).toBe(`${error}: not Binance klines: expected an array of 12-field arrays, got {"code":-1121,"msg":"Invalid symbol."}`);
    const inZip = dailyZip('BTCUSDT-1s-2026-04-17.zip', 'hello\nworld\n');
    expect(await failure(inZip)).toBe(`${inZip} (BTCUSDT-1s-2026-04-17.csv): line 2: 1 columns, a Binance kline has 12: not a kline file`);
    expect(await failure(file('header-only.csv', 'open_time,open\n'))).toContain('header-only.csv: holds no klines');
    expect(await failure(join(dir, 'absent.zip'))).toBe(`${join(dir, 'absent.zip')}: cannot read: ENOENT`);
  });
});
