// Binance klines from a file or a URL, whatever their form: a daily zip of CSV (the bulk
// archive), plain CSV, or a saved REST answer (JSON). The form is told by the bytes, not the name.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { UsageError } from '../../errors.js';
import { getSource, withDispatcher, type SourceGetOptions } from '../source-get.js';
import { looksLikeZip, readZip } from '../zip-archive.js';
import { klineFileName, symbolLabel } from './binance-symbol.js';
import { KlineRows } from './kline-rows.js';
import type { KlineSeries } from './kline-series.js';

/** Options of `readKlines`: how to fetch a URL, and the symbol the caller wants (a file named for another is refused). */
export interface ReadKlinesOptions extends SourceGetOptions {
  expectSymbol?: string;
}

/**
 * Use to read the klines of one bulk file or saved answer, by path or http(s) URL. Its symbol and
 * interval come from a name like `BTCUSDT-1s-2026-04-13.zip` where it has one (the interval
 * otherwise from the klines' length). Anything that is not klines is a UsageError of one line
 * naming the source.
 */
export async function readKlines(source: string, opts: ReadKlinesOptions = {}): Promise<KlineSeries> {
  const isUrl = /^https?:\/\//i.test(source);
  const name = isUrl ? decodeURIComponent(new URL(source).pathname.split('/').pop() ?? '') : basename(source);
  const named = klineFileName(name);
  checkSymbol(source, name, opts.expectSymbol);
  const bytes = isUrl ? await withDispatcher(opts, (o) => getSource(source, o)) : await readLocal(source);
  if (bytes.length === 0) throw new UsageError(`${source}: empty file, expected Binance klines (zip, CSV or JSON)`);

  const rows = new KlineRows(source);
  if (looksLikeZip(bytes)) {
    const entries = readZip(bytes, source);
    if (entries.length === 0) throw new UsageError(`${source}: the zip holds no file`);
    for (const entry of entries) {
      checkSymbol(source, entry.name, opts.expectSymbol);
      addText(rows, entry.data, `${source} (${entry.name})`);
    }
  } else addText(rows, bytes, source);
  if (rows.count === 0) throw new UsageError(`${source}: holds no klines`);
  return rows.series(named?.symbol ?? null, named?.interval ?? null);
}

/** CSV or JSON, told by the first character; binary bytes are neither. */
function addText(rows: KlineRows, bytes: Buffer, label: string): void {
  if (bytes.includes(0)) throw new UsageError(`${label}: not a Binance kline file (zip, CSV or JSON): binary content`);
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const first = text.trimStart()[0];
  if (first === undefined) throw new UsageError(`${label}: empty file, expected Binance klines (zip, CSV or JSON)`);
  if (first === '[' || first === '{') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`${label}: not JSON (${(err as Error).message.split('\n')[0]})`);
    }
    rows.addJson(json, label);
  } else rows.addCsv(text, label);
}

function checkSymbol(source: string, name: string, expect: string | undefined): void {
  const named = klineFileName(basename(name));
  if (!expect || !named || named.symbol === expect.toUpperCase()) return;
  throw new UsageError(`${source}: ${symbolLabel(expect.toUpperCase())} prices expected, ${basename(name)} is ${named.symbol}`);
}

async function readLocal(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new UsageError(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
