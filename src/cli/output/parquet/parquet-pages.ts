// The exporter's Parquet writing: pages into one file, plain snapshots through the columnar writer
// (from a page's columns or its ready CSV, no row built), anything else through the row writer.
import type { RowPage } from '../../../client/pages/row-page.js';
import { takesReadyCsv } from '../csv.js';
import type { ByteOutput } from './parquet.js';
import type { ParquetCodec } from './parquet-codecs.js';
import { isSnapshotParquet } from './parquet-shape.js';
import type { RecordSchema } from '../schemas/schema.js';
import type { OutputSink } from '../files/sink.js';

/** What the exporter lends the Parquet writing: its sink, the codec, and its end-of-output step. */
export interface ParquetTarget {
  sink: OutputSink;
  compression: ParquetCodec | undefined;
  done: () => Promise<void>;
}

/**
 * Use in the exporter to write `pages` as one Parquet file; `columns`: the same pages with their
 * rows as columns, read instead when the writer takes them.
 */
export async function writeParquetPages<T>(
  target: ParquetTarget,
  schema: RecordSchema<T>,
  pages: AsyncIterable<RowPage<T>> | Iterable<RowPage<T>>,
  columns?: () => AsyncIterable<RowPage<T>>,
): Promise<{ rows: number; readerGone: boolean }> {
  const { sink, done } = target;
  const out: ByteOutput = { write: (bytes) => sink.writeBytes(bytes), get closed() { return sink.closed; } };
  const parquetSchema = schema.parquetSchema ?? schema;
  const ready = isSnapshotParquet(parquetSchema) && takesReadyCsv(parquetSchema);
  const source = (async function* () {
    yield* ready && columns ? columns() : pages;
  })();
  // The first page is asked for before the writer library loads (tens of ms of compiling that
  // the service's answer would otherwise wait behind); loaded only by runs that write Parquet.
  const first = source.next();
  first.catch(() => undefined);
  try {
    const { parquetWriterFor } = await import('./parquet-snapshots.js');
    const file = parquetWriterFor(parquetSchema, out, target.compression);
    for (let step = await first; !step.done; step = await source.next()) {
      const page = step.value;
      if (sink.closed) break;
      if (ready && 'addColumns' in file && page.columns) await file.addColumns(page.columns);
      else if (ready && 'addReadyCsv' in file && page.readyCsv) await file.addReadyCsv(page.readyCsv, page.count);
      else await file.add(page.rows());
      if (sink.failure) throw sink.failure;
    }
    await file.finish();
    await done();
    return { rows: file.rows, readerGone: sink.closed };
  } finally {
    // Pages asked for ahead are given up when the export ends early (a failure, a closed reader).
    await source.return(undefined);
  }
}
