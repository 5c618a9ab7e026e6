// `msnap serve import`: loads what `msnap markets|snapshots --ndjson|--csv|--json|--parquet` wrote into the
// bulk writer, keeping the snapshot ids the file carries. The whole file is one transaction, so a
// bad line leaves the database exactly as it was.
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { MARKET_DURATION_MS, parseMarketId } from '../../domain/market.js';
import type { BulkWrites } from '../bulk-store.js';
import type { MarketRef } from '../record-writes.js';
import { toScaled } from '../core/price-scale.js';
import { parseCsvRecord } from './csv-line.js';
import { PARQUET_MAGIC, startsWith } from './file-magic.js';
import { aliasCoinPrices, canonicalField, parseImportRecord, RowError, type ImportedMarket, type ImportedSnapshot } from './import-row.js';
import { readLineBatches } from './line-reader.js';
import { csvColumns, PlainSnapshotParser, type CsvColumns } from './plain-row.js';

/** Input formats `msnap` writes. */
export type ImportFormat = 'ndjson' | 'csv' | 'json' | 'parquet';

/** Options for importFile; format is sniffed from the extension, else the first line, when absent. */
export interface ImportOptions {
  format?: ImportFormat;
}

/** What an import did: rows new to the database, and rows it already held. */
export interface ImportSummary {
  format: ImportFormat;
  lines: number;
  marketsAdded: number;
  marketsUpdated: number;
  snapshotsAdded: number;
  snapshotsSkipped: number;
  orderbooksAdded: number;
  ms: number;
  rowsPerSec: number;
}

/** Use to import a file path, '-' (with `stdin`), or a stream; throws UsageError `line N: ...` and rolls back. */
export async function importFile(
  bulk: BulkWrites,
  source: string | NodeJS.ReadableStream | Readable,
  opts: ImportOptions & { stdin?: NodeJS.ReadableStream } = {},
): Promise<ImportSummary> {
  const started = performance.now();
  let input: NodeJS.ReadableStream | Readable | undefined;
  let format = opts.format;
  if (typeof source === 'string') {
    if (source !== '-' && (format === 'parquet' || (format === undefined && startsWith(source, PARQUET_MAGIC)))) {
      format = 'parquet';
      // The Parquet reader opens the file itself, later: a missing one is the same one line here.
      (await openFile(source)).destroy();
    } else if (source === '-') {
      if (!opts.stdin) throw new UsageError('reading from stdin ("-") needs standard input');
      input = opts.stdin;
    } else {
      input = await openFile(source);
      const ext = extname(source).toLowerCase();
      if (!format && ext === '.csv') format = 'csv';
      if (!format && (ext === '.ndjson' || ext === '.jsonl')) format = 'ndjson';
      if (!format && ext === '.json') format = 'json';
    }
  } else {
    input = source;
  }

  const s: ImportSummary = {
    format: format ?? 'ndjson',
    lines: 0,
    marketsAdded: 0,
    marketsUpdated: 0,
    snapshotsAdded: 0,
    snapshotsSkipped: 0,
    orderbooksAdded: 0,
    ms: 0,
    rowsPerSec: 0,
  };
  const refs = new Map<string, MarketRef>();
  const touched = new Set<number>();
  const writer = bulk.snapshotWriter();
  const ids = bulk.sourceIds();
  const plain = new PlainSnapshotParser();
  /** The market of the last snapshot line: the only one the fast path writes to. */
  let current: MarketRef | undefined;
  let header: string[] | undefined;
  let columns: CsvColumns | undefined;
  let pending: { line: number; text: string } | undefined;

  const apply = (row: ImportedMarket | ImportedSnapshot): void => {
    if (row.kind === 'market') {
      const { ref, created } = bulk.upsertMarket(row);
      refs.set(row.marketId, ref);
      if (created) s.marketsAdded++;
      else s.marketsUpdated++;
      touched.add(ref.rowid);
      return;
    }
    let ref = refs.get(row.marketId) ?? bulk.marketRef(row.marketId);
    if (!ref) {
      const parsed = parseMarketId(row.marketId);
      if (!parsed) throw new RowError(`"market_id" ${JSON.stringify(row.marketId)} is not a known market and not <coin>-updown-<type>-<start seconds>`);
      const created = bulk.upsertMarket({
        marketId: row.marketId,
        coin: parsed.coin,
        marketType: parsed.marketType,
        startTime: parsed.startTime,
        endTime: parsed.startTime + MARKET_DURATION_MS[parsed.marketType],
        priceStart: null,
        priceEnd: null,
        winner: null,
      });
      ref = created.ref;
      s.marketsAdded++;
    }
    refs.set(row.marketId, ref);
    if (row.time < ref.startTime || row.time >= ref.endTime) {
      throw new RowError(`"time" ${row.time} lies outside market ${row.marketId} [${ref.startTime}, ${ref.endTime})`);
    }
    current = ref;
    plain.setMarket(row.marketId, ref.startTime, ref.endTime);
    const t = row.time - ref.startTime;
    writer.add(ref.rowid, t, toScaled(row.price), toScaled(row.priceUp), toScaled(row.priceDown));
    if (row.id !== null) ids.note(ref.rowid, t, row.id);
    if (row.orderbookUp !== null && row.orderbookDown !== null) {
      if (bulk.insertOrderbook(ref.rowid, t, row.orderbookUp, row.orderbookDown)) s.orderbooksAdded++;
    }
  };

  const handle = (text: string): void => {
    if (text.trim() === '') return;
    if (!format) {
      const head = text.trimStart();
      format = head.startsWith('{') ? 'ndjson' : head.startsWith('[') ? 'json' : 'csv';
      s.format = format;
      if (format === 'json') {
        text = jsonArrayLine(text);
        if (text === '') return;
      }
    }
    let rec: Record<string, unknown>;
    if (format !== 'csv') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new RowError('not valid JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new RowError('expected a JSON object');
      rec = parsed as Record<string, unknown>;
      // JSON keys are exact: only the hosted service's coin-prefixed prices need mapping.
      aliasCoinPrices(rec);
    } else {
      const fields = parseCsvRecord(text);
      if (!fields) throw new RowError('unterminated quoted field');
      if (!header) {
        header = fields.map(canonicalField);
        if (!header.includes('market_id')) throw new RowError('the CSV header has no market_id column');
        columns = csvColumns(header);
        return;
      }
      if (fields.length !== header.length) {
        throw new RowError(`expected ${header.length} fields as in the header, got ${fields.length}`);
      }
      rec = {};
      for (let i = 0; i < header.length; i++) rec[header[i]!] = fields[i];
    }
    apply(parseImportRecord(rec));
  };

  bulk.begin();
  let lineNo = 0;
  try {
    if (format === 'parquet') {
      // Row numbers (1 = the first row) stand in for line numbers in errors.
      const { parquetRecords } = await import('./parquet-records.js');
      for await (const rec of parquetRecords(source as string)) {
        lineNo++;
        apply(parseImportRecord(rec));
      }
      s.lines = lineNo;
    }
    for await (const batch of input ? readLineBatches(input) : []) {
      const lines = batch.lines;
      for (let i = 0; i < lines.length; i++) {
        let text = lines[i]!;
        if (format === 'json') {
          text = jsonArrayLine(text);
          if (text === '') continue;
        }
        // Most lines are snapshots of the market the line before named, in msnap's own shape.
        if (pending === undefined && current !== undefined) {
          if (format !== 'csv' ? plain.ndjson(text) : columns !== undefined && plain.csv(text, columns)) {
            writer.add(current.rowid, plain.t, plain.price, plain.priceUp, plain.priceDown);
            if (!Number.isNaN(plain.id)) ids.note(current.rowid, plain.t, plain.id);
            continue;
          }
        }
        lineNo = batch.first + i;
        if (pending) {
          // A quoted CSV cell spanned a newline: the record continues on this line.
          text = `${pending.text}\n${text}`;
          lineNo = pending.line;
          pending = undefined;
        }
        if (format === 'csv' && text.includes('"') && parseCsvRecord(text) === undefined) {
          pending = { line: lineNo, text };
          continue;
        }
        handle(text);
      }
      s.lines = batch.first + lines.length - 1;
    }
    if (pending) {
      lineNo = pending.line;
      throw new RowError('unterminated quoted field');
    }
    writer.flush();
    ids.finish();
    s.snapshotsAdded = writer.added;
    s.snapshotsSkipped = writer.skipped;
    for (const id of writer.touched) touched.add(id);
    // Imported data is the user's: serve --live no longer writes a synthetic market it reached.
    bulk.world.release(touched);
    bulk.refreshMarkets(touched, writer);
    bulk.commit();
  } catch (err) {
    bulk.rollback();
    if (err instanceof RowError) throw new UsageError(`${format === 'parquet' ? 'row' : 'line'} ${lineNo}: ${err.message}`);
    if (err instanceof SyntaxError) throw new UsageError(`line ${lineNo}: ${err.message}`);
    throw err;
  }
  s.ms = performance.now() - started;
  const rows = s.snapshotsAdded + s.snapshotsSkipped + s.marketsAdded + s.marketsUpdated;
  s.rowsPerSec = s.ms > 0 ? Math.round(rows / (s.ms / 1000)) : 0;
  return s;
}

/**
 * A line of a JSON array as msnap --json writes it ('[', one object per line with a trailing
 * comma, ']'): the object alone, or '' for a line that holds none.
 */
function jsonArrayLine(line: string): string {
  const text = line.trim();
  if (text === '[' || text === ']' || text === '[]' || text === '') return '';
  return text.endsWith(',') ? text.slice(0, -1) : text;
}

async function openFile(path: string): Promise<Readable> {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (e: NodeJS.ErrnoException) =>
      reject(new UsageError(e.code === 'ENOENT' ? `no such file: ${path}` : `cannot read ${path}: ${e.message}`)),
    );
  });
  return stream;
}
