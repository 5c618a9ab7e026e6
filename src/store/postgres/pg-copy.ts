// Bulk rows into PostgreSQL with COPY ... FROM STDIN in the text format: one round of the protocol
// per table instead of one INSERT per row, streamed batch by batch with backpressure.
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { isConnectionError, type Pg } from './pg-connection.js';

/** One value as COPY's text format wants it: \N for null, backslash escapes in text. */
function copyValue(v: string | number | boolean | null | undefined): string {
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
function copyLines(rows: readonly (readonly (string | number | boolean | null | undefined)[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) out += (i === 0 ? '' : '\t') + copyValue(row[i]);
    out += '\n';
  }
  return out;
}

/**
 * Use inside a transaction: streams every batch into `table (columns)`; `onBatch` hears how many
 * rows each batch held (and may hold the copy up while it answers). Returns the rows copied. A bad
 * value fails the COPY and so the transaction; so does a lost connection.
 */
export async function copyInto<R>(
  sql: Pg,
  table: string,
  columns: readonly string[],
  batches: AsyncIterable<R[]>,
  map: (row: R) => readonly (string | number | boolean | null | undefined)[],
  onBatch?: (rows: number) => void | Promise<void>,
): Promise<number> {
  // As a simple query: after a bad row the server ends the COPY at once with ReadyForQuery;
  // under the extended protocol it would wait for a Sync the driver never sends, and hang.
  const stream = await sql.unsafe(`COPY ${table} (${columns.join(', ')}) FROM STDIN`).simple().writable();
  const done = finished(stream);
  done.catch(() => undefined);
  // The driver finishes the stream only on success: when the server rejects the data after the
  // last write (or the connection drops then), 'finish' never comes. A query queued behind the
  // COPY settles either way: it fails (transaction aborted, or connection closed) when the COPY did.
  let finalSent!: () => void;
  const finalCalled = new Promise<void>((resolve) => (finalSent = resolve));
  const driverFinal = stream._final.bind(stream);
  stream._final = (callback) => {
    driverFinal(callback);
    finalSent();
  };
  let rows = 0;
  try {
    for await (const batch of batches) {
      if (!stream.write(copyLines(batch.map(map)))) await Promise.race([once(stream, 'drain'), done]);
      rows += batch.length;
      await onBatch?.(batch.length);
    }
  } catch (err) {
    stream.destroy(err as Error);
    throw err;
  }
  stream.end();
  await Promise.race([
    done,
    finalCalled.then(async () => {
      try {
        await sql`SELECT 1`;
      } catch (err) {
        throw isConnectionError(err) ? err : new Error(`PostgreSQL refused a row copied into ${table} (the load is rolled back)`);
      }
    }),
  ]);
  return rows;
}
