// Which schemas the columnar snapshot writer (parquet-snapshots.ts) takes, known without loading
// it: the exporter chooses the pages to ask for before the writer library has loaded.
import { machineColumns, type RecordSchema } from '../schemas/schema.js';

/** The columns the columnar writer takes, by name and Parquet type, in order. */
const SHAPE = [
  ['id', 'int64'],
  ['market_id', 'dictionary'],
  ['time', 'timestamp'],
  ['price', 'double'],
  ['price_up', 'double'],
  ['price_down', 'double'],
] as const;

/** True when `schema` is written as exactly the six snapshot columns (none of them nullable). */
export function isSnapshotParquet<T>(schema: RecordSchema<T>): boolean {
  const columns = machineColumns(schema);
  return columns.length === SHAPE.length && columns.every((c, i) => c.name === SHAPE[i]![0] && c.parquet === SHAPE[i]![1] && !c.nullable);
}
