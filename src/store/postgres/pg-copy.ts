// Bulk rows into PostgreSQL with COPY ... FROM STDIN in the text format: one round of the protocol
// per table instead of one INSERT per row, streamed batch by batch with backpressure.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pg } from './pg-connection.js';

/** One value as COPY's text format wants it: \N for null, backslash escapes in text. */
export function copyValue(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`cannot copy the number ${v}`);
    return String(v);
  }
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, escapeChar) : v;
}

function escapeChar(c: string): string {
  return c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r';
}

/** A batch of rows as COPY text: tab between values, newline after each row. */
export function copyLines(rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) out += (i === 0 ? '' : '\t') + copyValue(row[i]);
    out += '\n';
  }
  return out;
}

/**
 * Use inside a transaction: streams every batch into `table (columns)`; `onBatch` hears how many
 * rows each batch held. Returns the rows copied. A bad value fails the COPY and so the transaction.
 */
export async function copyInto<R>(
  sql: Pg,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<R[]>,
  map: (row: R) => readonly (string | number | boolean | null | undefined)[],
  onBatch?: (rows: number) => void,
): Promise<number> {
  let rows = 0;
  const stream = await sql.unsafe(`COPY ${table} (${columns.join(', ')}) FROM STDIN`).writable();
  async function* text(): AsyncIterable<string> {
    for await (const batch of batches) {
      yield copyLines(batch.map(map));
      rows += batch.length;
      onBatch?.(batch.length);
    }
  }
  await pipeline(Readable.from(text()), stream);
  return rows;
}
