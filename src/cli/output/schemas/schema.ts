// How a kind of record becomes output: named columns in contract order, plus optional table
// formatting and JSON shaping. Commands pick a schema; exporters decide what to do with it.
import type { RowLayout } from '../../../domain/row-layout.js';
import type { TextFormat } from '../format.js';

/** A value a CSV cell or table cell can hold; objects are written as JSON text. */
export type CellValue = string | number | boolean | null | undefined | object;

/** A column's Parquet type: INT64, UTC epoch-ms timestamp, DOUBLE, UTF-8 text (`dictionary`: dictionary-encoded), BOOLEAN. */
export type ParquetType = 'int64' | 'timestamp' | 'double' | 'string' | 'dictionary' | 'boolean';

/** One output column; `name` is the contract's field name (CSV header, JSON key). */
export interface Column<T> {
  name: string;
  value: (row: T) => CellValue;
  /** How a table shows the cell (e.g. ISO times); `false` leaves the column out of tables. */
  table?: ((row: T) => string) | false;
  /** Table header or label; defaults to `name`. */
  label?: string;
  /** A summary only tables show (CSV and JSON carry the underlying columns instead). */
  tableOnly?: true;
  /** Its Parquet type; a schema with a machine column lacking one cannot be written as Parquet. */
  parquet?: ParquetType;
  /** The value may be null (an OPTIONAL Parquet column); otherwise REQUIRED. */
  nullable?: true;
  /** When a table is too wide for the terminal, columns are dropped lowest first; undefined: always kept. */
  dropOrder?: number;
}

/** Use to describe a record kind once for every format. */
export interface RecordSchema<T> {
  columns: Column<T>[];
  /** The object JSON and NDJSON write; defaults to the columns' values keyed by name (undefined left out). */
  json?: (row: T) => unknown;
  /** What Parquet writes instead, when the columns hold nested values (flattened there). */
  parquetSchema?: RecordSchema<T>;
  /** A list as a table: 'grid' (boxed, the default) or 'columns' (plain aligned text, as admin listings print). */
  tableLayout?: 'grid' | 'columns';
  /** The line a table shows instead of an empty list (e.g. how to make the first item). */
  emptyTable?: string;
  /** A JSON list laid out as JSON.stringify(rows, null, jsonIndent) instead of one row per line. */
  jsonIndent?: number;
  /** How a store that writes these rows itself lays them out in a machine format (see Exporter.listPages). */
  textLayout?: (format: TextFormat) => RowLayout;
}

/**
 * The JSON/NDJSON object of a row: the schema's shaping, else its columns' values keyed by name
 * (undefined left out). Build once per list: the columns are looked up once, not per row.
 */
export function jsonShaper<T>(schema: RecordSchema<T>): (row: T) => unknown {
  if (schema.json) return schema.json;
  const columns = machineColumns(schema);
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const col of columns) {
      const v = col.value(row);
      if (v !== undefined) out[col.name] = v;
    }
    return out;
  };
}

/** The columns CSV and JSON write, in order. */
export function machineColumns<T>(schema: RecordSchema<T>): Column<T>[] {
  return schema.columns.filter((c) => !c.tableOnly);
}

/** A cell as text: null/undefined empty, objects as JSON, everything else as String(). */
export function cellText(value: CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** An epoch-ms cell as ISO 8601 for people; empty when absent. */
export function isoCell(value: number | null | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? new Date(value).toISOString() : '';
}
