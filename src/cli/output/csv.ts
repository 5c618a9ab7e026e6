// CSV text for records: a header of the contract's field names, then one line per row.
// Quoting is csv-stringify's with its defaults (RFC 4180: a cell holding `,` `"` CR or LF is
// quoted, inner quotes doubled), done by hand: exports render whole pages into one string, and
// a csv-stringify call per row (options re-read, arrays built) cost more than the rest of the
// export. renderers.test.ts checks the bytes against csv-stringify itself.
import { READY_CSV_COLUMNS } from '../../client/pages/snapshot-page.js';
import type { Snapshot } from '../../domain/market.js';
import { cellText, machineColumns, type CellValue, type RecordSchema } from './schemas/schema.js';

const NEEDS_QUOTES = /[",\r\n]/;
const QUOTE = /"/g;

/** One cell as CSV text: null/undefined empty, objects as JSON, quoted only when it must be. */
export function csvCell(value: CellValue): string {
  // A number's text never holds a comma, quote or line break.
  if (typeof value === 'number') return `${value}`;
  const text = cellText(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(QUOTE, '""')}"` : text;
}

/** Turns a page of rows into CSV lines (each with its newline); built once per export. */
export type CsvLines<T> = (rows: readonly T[]) => string;

/**
 * Use for lists: compiles the schema's columns once, then renders whole pages. A string cell equal
 * to the one above it (a snapshot's market_id) reuses that cell's text instead of re-checking it.
 */
export function csvLines<T>(schema: RecordSchema<T>): CsvLines<T> {
  const values = machineColumns(schema).map((c) => c.value);
  const last = values.length - 1;
  const lastValue: CellValue[] = values.map(() => undefined);
  const lastText: string[] = values.map(() => '');
  const cell = (i: number, row: T): string => {
    const v = values[i]!(row);
    if (typeof v === 'number') return `${v}`;
    if (typeof v === 'string' && v === lastValue[i]) return lastText[i]!;
    const text = csvCell(v);
    if (typeof v === 'string') {
      lastValue[i] = v;
      lastText[i] = text;
    }
    return text;
  };
  return (rows) => {
    let out = '';
    for (const row of rows) {
      for (let i = 0; i < last; i++) out += `${cell(i, row)},`;
      out += last >= 0 ? `${cell(last, row)}\n` : '\n';
    }
    return out;
  };
}

// A snapshot whose every value would show a change a column made to it (rounding, scaling,
// another format): a schema that renders it as the values' own text renders any snapshot so.
const PROBE: Snapshot = { id: 123_456_789, market_id: 'probe-id', time: 1_763_769_600_125, price: 97_123.4567, price_up: 0.123, price_down: 0.877 };

/**
 * Use for pages from the client: true when a page's ready CSV (its rows copied from the body, see
 * client/snapshot-page.ts) is what this schema writes: its columns are the ready columns, by name,
 * and it renders a probe snapshot as its values' own text. Else the rows are rendered.
 */
export function takesReadyCsv<T>(schema: RecordSchema<T>): boolean {
  const names = machineColumns(schema).map((c) => c.name);
  if (names.length !== READY_CSV_COLUMNS.length || names.some((n, i) => n !== READY_CSV_COLUMNS[i])) return false;
  let line: string;
  try {
    line = csvLines(schema)([PROBE as T]);
  } catch {
    return false;
  }
  return line === `${READY_CSV_COLUMNS.map((name) => PROBE[name as keyof Snapshot]).join(',')}\n`;
}

/** The header line of a schema's CSV. */
export function csvHeader<T>(schema: RecordSchema<T>): string {
  return `${machineColumns(schema)
    .map((c) => csvCell(c.name))
    .join(',')}\n`;
}

/** One CSV line (with its newline) for a row; objects become JSON text, null an empty cell. */
export function csvRow<T>(schema: RecordSchema<T>, row: T): string {
  return csvLines(schema)([row]);
}
