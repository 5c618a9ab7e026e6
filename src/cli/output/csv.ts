// CSV text for records: a header of the contract's field names, then one line per row.
// Each row is stringified on its own (csv-stringify's sync API) so rows stream out as they arrive.
import { stringify } from 'csv-stringify/sync';
import { cellText, machineColumns, type RecordSchema } from './schema.js';

/** The header line of a schema's CSV. */
export function csvHeader<T>(schema: RecordSchema<T>): string {
  return stringify([machineColumns(schema).map((c) => c.name)]);
}

/** One CSV line (with its newline) for a row; objects become JSON text, null an empty cell. */
export function csvRow<T>(schema: RecordSchema<T>, row: T): string {
  return stringify([machineColumns(schema).map((c) => cellText(c.value(row)))]);
}
