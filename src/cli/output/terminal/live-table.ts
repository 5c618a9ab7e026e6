// A table that grows as rows arrive (`msnap watch` on a terminal): a boxed table needs every row
// before it can draw, so this one prints plain columns, two spaces apart, the header once, each
// row as it comes. Column widths are set by the header and the first rows (a later, longer cell
// pushes its line out rather than the whole table being redrawn); columns are dropped to fit the
// terminal in the order boxed tables drop them, but no cell is cut: the first rows cannot tell how
// wide later ones get (an orderbook that starts empty), and a cut time is worse than a long line.
import { cellText, type Column, type RecordSchema } from '../schemas/schema.js';
import { fitColumns, type TableFit } from './table-fit.js';

/** Use once per live table: each call renders rows (the first also the header). */
export function liveTable<T>(schema: RecordSchema<T>, width: number | undefined, onFitted?: (fit: TableFit) => void): (rows: readonly T[]) => string {
  let layout: { cols: Column<T>[]; widths: number[] } | undefined;
  const cell = (c: Column<T>, row: T): string => (typeof c.table === 'function' ? c.table(row) : cellText(c.value(row)));
  const line = (texts: string[], widths: number[]): string => texts.map((t, i) => t.padEnd(widths[i]!)).join('  ').trimEnd();
  return (rows) => {
    let head = '';
    if (!layout) {
      let cols = schema.columns.filter((c) => c.table !== false);
      let widths = cols.map((c) => Math.max((c.label ?? c.name).length, ...rows.map((r) => cell(c, r).length)));
      if (width !== undefined) {
        const fit = fitColumns(
          cols.map((c, i) => ({ name: c.label ?? c.name, width: widths[i]!, ...(c.dropOrder !== undefined ? { dropOrder: c.dropOrder } : {}) })),
          // fitColumns measures boxed tables (3 characters a column); these take 2.
          width + cols.length - 1,
        );
        widths = fit.keep.map((i) => widths[i]!);
        cols = fit.keep.map((i) => cols[i]!);
        if (fit.dropped.length > 0) onFitted?.({ ...fit, truncated: false });
      }
      layout = { cols, widths };
      head = `${line(cols.map((c) => c.label ?? c.name), widths)}\n`;
    }
    const { cols, widths } = layout;
    return head + rows.map((r) => `${line(cols.map((c) => cell(c, r)), widths)}\n`).join('');
  };
}
