// The format-specific writer a command is handed: commands give it rows and a schema and never
// look at the format themselves (the GitHub CLI's injected exporter).
import { pageOf, type RowPage } from '../../client/pages/row-page.js';
import { csvHeader, csvLines, csvRow, takesReadyCsv } from './csv.js';
import type { OutputFormat } from './format.js';
import type { ParquetCodec } from './parquet/parquet-codecs.js';
import { writeParquetPages } from './parquet/parquet-pages.js';
import { jsonArrayEnd, jsonArrayItems, jsonArraySeparator, jsonRecord, ndjsonLine, ndjsonLines } from './json.js';
import type { RecordSchema } from './schemas/schema.js';
import type { OutputSink } from './files/sink.js';
import { isTextFormat, type TextFormat } from './schemas/snapshot-text.js';
import type { RowLayout } from '../../domain/row-layout.js';
import type { TextPage } from '../../client/types.js';
import type { TableOptions } from './terminal/table.js';
import type { TableFit } from './terminal/table-fit.js';

/** What a list export did: rows written, and whether the reader went away first. */
export interface ListResult {
  rows: number;
  /** The output closed early (e.g. `| head`); the caller stops quietly. */
  readerGone: boolean;
}

/** Rows a source writes as text itself, in the layout it is given (a local store, from its stored values). */
export type TextSource = (layout: RowLayout) => AsyncIterable<TextPage>;

/** The same rows as `pages` in forms a writer may take instead (they are then never read). */
export interface PageForms<T> {
  /** As text the source writes itself (a local store), for a machine format the schema has a text layout for. */
  text?: TextSource;
  /** As pages asked for with their rows as columns (RowPage.columns), for Parquet of plain snapshots. */
  columns?: () => AsyncIterable<RowPage<T>>;
}

/** Use in commands to write results; built once per run by deps.ts. */
export interface Exporter {
  /** Write rows as they arrive (the iterator is stopped early when the reader goes away). */
  list<T>(schema: RecordSchema<T>, rows: AsyncIterable<T> | Iterable<T>): Promise<ListResult>;
  /**
   * Write rows a page at a time (large exports): each page becomes one string and one write, so
   * the cost per row is the row's text alone. Same bytes as `list` over the same rows. `forms`:
   * the same rows in a form the writer for the format takes faster, read instead of `pages`.
   */
  listPages<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>, forms?: PageForms<T>): Promise<ListResult>;
  /**
   * Write rows as they come for as long as they come (`msnap watch`): as `listPages`, except that
   * a table is printed a row at a time (plain columns, live-table.ts) instead of once at the end.
   */
  follow<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>>): Promise<ListResult>;
  /** Write one result. */
  record<T>(schema: RecordSchema<T>, row: T): Promise<void>;
}

/** How the exporter behaves beyond the format. */
export interface ExporterOptions {
  format: OutputFormat;
  sink: OutputSink;
  color: boolean;
  /** A table holds at most this many rows (a terminal is no place for 100k rows); undefined = all. */
  tableRowCap?: number;
  /** Tables are fitted to this many columns (the terminal's width); undefined: as wide as they are. */
  tableWidth?: number;
  /** Told when the table was capped (goes to stderr). */
  onNote?: (message: string) => void;
  /** Parquet compression (default Snappy). */
  compression?: ParquetCodec;
}

// Rows rendered into one string before it is handed to the sink: whole pages as one string kept
// far more of the heap alive through collections (docs/testing.md, "Measured choices").
const RENDER_SLICE = 500;

/** Build the exporter for the chosen format. */
export function createExporter(opts: ExporterOptions): Exporter {
  const { sink } = opts;
  const emit = async (text: string | Uint8Array): Promise<void> => {
    const wait = typeof text === 'string' ? sink.write(text) : sink.writeBytes(text);
    if (wait) await wait;
    if (sink.failure) throw sink.failure;
  };
  const done = async (): Promise<void> => {
    const wait = sink.flush();
    if (wait) await wait;
    if (sink.failure) throw sink.failure;
  };

  return {
    list<T>(schema: RecordSchema<T>, rows: AsyncIterable<T> | Iterable<T>): Promise<ListResult> {
      return writePages(schema, onePerPage(rows));
    },

    listPages<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>, forms: PageForms<T> = {}): Promise<ListResult> {
      const format = opts.format;
      if (forms.text && schema.textLayout && isTextFormat(format)) {
        return writeChunks(schema, format, ownText(forms.text(schema.textLayout(format)), format));
      }
      return writePages(schema, pages, forms.columns);
    },

    async follow<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>>): Promise<ListResult> {
      if (opts.format !== 'table') return writePages(schema, pages);
      const { liveTable } = await import('./terminal/live-table.js');
      const render = liveTable(schema, opts.tableWidth, tableOptions().onFitted);
      let rows = 0;
      for await (const page of pages) {
        if (sink.closed) break;
        if (page.count === 0) continue;
        await emit(render(page.rows()));
        rows += page.count;
      }
      await done();
      return { rows, readerGone: sink.closed };
    },

    async record<T>(schema: RecordSchema<T>, row: T): Promise<void> {
      if (opts.format === 'parquet') {
        await parquetList(schema, [pageOf([row])]);
        return;
      }
      if (opts.format === 'table') await emit((await tables()).renderRecordTable(schema, row, tableOptions()));
      else if (opts.format === 'csv') await emit(csvHeader(schema) + csvRow(schema, row));
      else if (opts.format === 'ndjson') await emit(ndjsonLine(schema, row));
      else await emit(jsonRecord(schema, row));
      await done();
    },
  };

  function tableOptions(): TableOptions {
    return {
      color: opts.color,
      ...(opts.tableWidth !== undefined
        ? {
            width: opts.tableWidth,
            onFitted: (fit: TableFit) =>
              opts.onNote?.(
                wrapNote(
                  `table fitted to ${opts.tableWidth} columns${fit.dropped.length ? ` (hidden: ${fit.dropped.join(', ')})` : ''}${
                    fit.truncated ? ' (long cells cut)' : ''
                  }; --wide shows everything, --csv/--json every field`,
                  opts.tableWidth!,
                ),
              ),
          }
        : {}),
    };
  }

  // `columns`: the same pages with their rows as columns, which a Parquet writer may read instead.
  async function writePages<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>, columns?: () => AsyncIterable<RowPage<T>>): Promise<ListResult> {
    if (opts.format === 'table') return tableList(schema, pages);
    if (opts.format === 'parquet') return parquetList(schema, pages, columns);
    // A snapshot page from the client may carry its CSV ready: written as it is, no row is built.
    const ready = opts.format === 'csv' && takesReadyCsv(schema);
    return writeChunks(schema, opts.format, rendered(pages, pageRenderer(opts.format, schema), ready));
  }

  // A page is rendered a slice at a time: text waiting to be written stays small, so it dies
  // young instead of being copied into the old generation (peak RSS, not just speed).
  async function* rendered<T>(
    pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>,
    render: (rows: readonly T[], first: number) => string,
    ready: boolean,
  ): AsyncGenerator<TextPage> {
    let count = 0;
    for await (const input of pages) {
      if (sink.closed) return;
      if (ready && input.readyCsv) {
        yield { text: input.readyCsv, rows: input.count };
        count += input.count;
        continue;
      }
      const page = input.rows();
      for (let at = 0; at < page.length && !sink.closed; at += RENDER_SLICE) {
        const rows = at === 0 && page.length <= RENDER_SLICE ? page : page.slice(at, at + RENDER_SLICE);
        yield { text: render(rows, count), rows: rows.length };
        count += rows.length;
      }
    }
  }

  // A source's own pages of rows, joined as the format joins rows (JSON: `[` first, then commas).
  async function* ownText(pages: AsyncIterable<TextPage>, format: TextFormat): AsyncGenerator<TextPage> {
    let count = 0;
    for await (const page of pages) {
      if (sink.closed) return;
      if (page.rows === 0) continue;
      if (format === 'json') yield { text: jsonArraySeparator(count), rows: 0 };
      yield page;
      count += page.rows;
    }
  }

  async function writeChunks<T>(schema: RecordSchema<T>, format: TextFormat, chunks: AsyncIterable<TextPage>): Promise<ListResult> {
    let count = 0;
    // Nothing is written before the first page has arrived: a request that fails at once must not
    // leave a header-only CSV (or a lone `[`) on stdout.
    let started = false;
    const start = async (): Promise<void> => {
      if (started) return;
      started = true;
      if (format === 'csv') await emit(csvHeader(schema));
    };
    for await (const chunk of chunks) {
      if (sink.closed) break;
      await start();
      await emit(chunk.text);
      count += chunk.rows;
    }
    if (!sink.closed) await start();
    if (format === 'json' && !sink.closed) await emit(jsonArrayEnd(count));
    await done();
    return { rows: count, readerGone: sink.closed };
  }

  function parquetList<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>, columns?: () => AsyncIterable<RowPage<T>>): Promise<ListResult> {
    return writeParquetPages({ sink, compression: opts.compression, done }, schema, pages, columns);
  }

  async function tableList<T>(schema: RecordSchema<T>, pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>): Promise<ListResult> {
    const kept: T[] = [];
    let capped = false;
    outer: for await (const page of pages) {
      for (const row of page.rows()) {
        if (opts.tableRowCap !== undefined && kept.length >= opts.tableRowCap) {
          capped = true;
          break outer;
        }
        kept.push(row);
      }
    }
    await emit((await tables()).renderTable(schema, kept, tableOptions()));
    await done();
    if (capped) {
      opts.onNote?.(
        `showing the first ${kept.length} rows; use --csv, --ndjson, --json or -o FILE for all of them`,
      );
    }
    return { rows: kept.length, readerGone: sink.closed };
  }
}

// The note fits the terminal too: wrapped at spaces, continuation lines under its first word
// (after the `msnap: ` every note starts with).
function wrapNote(text: string, width: number): string {
  const indent = 'msnap: '.length;
  const room = Math.max(20, width - indent);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

// cli-table3 takes a good part of the CLI's start: loaded only by runs that print a table.
function tables(): Promise<typeof import('./terminal/table.js')> {
  return import('./terminal/table.js');
}

// The text of a page of rows in a machine format, `first` being the number of rows written before it.
function pageRenderer<T>(format: TextFormat, schema: RecordSchema<T>): (rows: readonly T[], first: number) => string {
  if (format === 'csv') return csvLines(schema);
  if (format === 'ndjson') return ndjsonLines(schema);
  return jsonArrayItems(schema);
}

// Rows as pages of one: `list` streams rows as they arrive, so nothing waits for a page to fill.
async function* onePerPage<T>(rows: AsyncIterable<T> | Iterable<T>): AsyncGenerator<RowPage<T>> {
  for await (const row of rows) yield pageOf([row]);
}
