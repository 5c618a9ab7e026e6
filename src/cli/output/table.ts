// Tables for people on a terminal (cli-table3). Colour only when asked for: with `color` false
// the text holds no ANSI codes at all.
import Table from 'cli-table3';
import { cellText, type Column, type RecordSchema } from './schema.js';

/** Options every table takes. */
export interface TableOptions {
  color: boolean;
}

// cli-table3's own styles go through @colors/colors, which turns itself off when it guesses the
// terminal has no colour (CI=true, no TTY): the caller has already decided, so colour here by hand.
const NO_STYLE = { head: [], border: [] };

function header(text: string, opts: TableOptions): string {
  return opts.color ? `\u001b[36m${text}\u001b[39m` : text;
}

function shown<T>(schema: RecordSchema<T>): Column<T>[] {
  return schema.columns.filter((c) => c.table !== false);
}

function cell<T>(col: Column<T>, row: T): string {
  return typeof col.table === 'function' ? col.table(row) : cellText(col.value(row));
}

/** A list of rows as one table, one column per shown schema column. */
export function renderTable<T>(schema: RecordSchema<T>, rows: readonly T[], opts: TableOptions): string {
  if (rows.length === 0 && schema.emptyTable !== undefined) return `${schema.emptyTable}\n`;
  const cols = shown(schema);
  if (schema.tableLayout === 'columns') return renderColumns(cols, rows);
  const table = new Table({ head: cols.map((c) => header(c.label ?? c.name, opts)), style: NO_STYLE });
  for (const row of rows) table.push(cols.map((c) => cell(c, row)));
  return `${table.toString()}\n`;
}

// Plain text columns two spaces apart, padded to the widest cell, no trailing blanks.
function renderColumns<T>(cols: Column<T>[], rows: readonly T[]): string {
  const head = cols.map((c) => c.label ?? c.name);
  const cells = rows.map((row) => cols.map((c) => cell(c, row)));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (texts: string[]) => texts.map((t, i) => t.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), ...cells.map(line)].join('\n') + '\n';
}

/** A single result as a two-column table: label, value. */
export function renderRecordTable<T>(schema: RecordSchema<T>, row: T, opts: TableOptions): string {
  const table = new Table({ style: NO_STYLE });
  for (const col of shown(schema)) table.push({ [header(col.label ?? col.name, opts)]: cell(col, row) });
  return `${table.toString()}\n`;
}
