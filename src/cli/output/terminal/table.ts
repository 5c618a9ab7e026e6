// Tables for people on a terminal (cli-table3). Colour only when asked for: with `color` false
// the text holds no ANSI codes at all.
import Table from 'cli-table3';
import { cellText, type Column, type RecordSchema } from '../schemas/schema.js';
import { cutCell, fitColumns, type TableFit } from './table-fit.js';

/** Options every table takes. */
export interface TableOptions {
  color: boolean;
  /** Fit to this many terminal columns (drop columns in the schema's order, then cut cells); undefined: no limit (--wide). */
  width?: number;
  /** Told what fitting dropped or cut, when it did (the caller prints a note). */
  onFitted?: (fit: TableFit) => void;
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

/** A list of rows as one table, one column per shown schema column (fitted to `opts.width`). */
export function renderTable<T>(schema: RecordSchema<T>, rows: readonly T[], opts: TableOptions): string {
  if (rows.length === 0 && schema.emptyTable !== undefined) return `${schema.emptyTable}\n`;
  if (schema.tableLayout === 'columns') return renderColumns(shown(schema), rows);
  let cols = shown(schema);
  let cells = rows.map((row) => cols.map((c) => cell(c, row)));
  let heads = cols.map((c) => c.label ?? c.name);
  if (opts.width !== undefined) {
    const fit = fitColumns(
      // Named as the header shows them: the note about hidden columns speaks of what the user sees.
      cols.map((c, i) => ({
        name: heads[i]!,
        width: Math.max(heads[i]!.length, ...cells.map((r) => r[i]!.length)),
        ...(c.dropOrder !== undefined ? { dropOrder: c.dropOrder } : {}),
      })),
      opts.width,
    );
    cols = fit.keep.map((i) => cols[i]!);
    heads = fit.keep.map((i, k) => cutCell(heads[i]!, fit.widths[k]!));
    cells = cells.map((r) => fit.keep.map((i, k) => cutCell(r[i]!, fit.widths[k]!)));
    if (fit.dropped.length > 0 || fit.truncated) opts.onFitted?.(fit);
  }
  const table = new Table({ head: heads.map((h) => header(h, opts)), style: NO_STYLE });
  for (const row of cells) table.push(row);
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

/** A single result as a two-column table: label, value (values cut to fit `opts.width`). */
export function renderRecordTable<T>(schema: RecordSchema<T>, row: T, opts: TableOptions): string {
  const cols = shown(schema);
  const labels = cols.map((c) => c.label ?? c.name);
  const values = cols.map((c) => cell(c, row));
  let valueWidth = Infinity;
  if (opts.width !== undefined) {
    const fit = fitColumns(
      [
        { name: 'label', width: Math.max(...labels.map((l) => l.length)) },
        { name: 'value', width: Math.max(0, ...values.map((v) => v.length)) },
      ],
      opts.width,
    );
    valueWidth = fit.widths[1]!;
    if (fit.truncated) opts.onFitted?.(fit);
  }
  const table = new Table({ style: NO_STYLE });
  cols.forEach((_, i) => table.push({ [header(labels[i]!, opts)]: cutCell(values[i]!, valueWidth) }));
  return `${table.toString()}\n`;
}
