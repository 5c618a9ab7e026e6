// Fitting a table to the terminal: a markets table is ~160 characters wide and wraps into noise
// in 80 columns. Columns are dropped in the order the schema states (the least useful first);
// if the kept ones are still too wide, the widest cells are cut with an ellipsis.

/** What the fitting decided: the columns kept (indexes), their widths, and the names dropped. */
export interface TableFit {
  keep: number[];
  /** Content width per kept column (cells longer than this are cut). */
  widths: number[];
  dropped: string[];
  truncated: boolean;
}

/** One column as the fitter sees it: its header, its widest cell, and when it may be dropped. */
export interface FitColumn {
  name: string;
  /** Widest text in the column, header included. */
  width: number;
  /** Lower is dropped first; undefined is never dropped. */
  dropOrder?: number;
}

/** cli-table3 draws `│ cell │`: one space each side, one border between columns and at each end. */
export function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, w) => sum + w + 3, 1);
}

/** The narrowest a cut column gets: room for a few characters and the ellipsis. */
const MIN_CELL = 6;

/** Use to decide, before rendering, which columns fit `maxWidth` (the terminal's columns). */
export function fitColumns(cols: readonly FitColumn[], maxWidth: number): TableFit {
  const keep = cols.map((_, i) => i);
  const dropped: string[] = [];
  const droppable = cols
    .map((c, i) => ({ i, order: c.dropOrder }))
    .filter((c): c is { i: number; order: number } => c.order !== undefined)
    .sort((a, b) => a.order - b.order);
  const widthOf = (): number => tableWidth(keep.map((i) => cols[i]!.width));
  for (const { i } of droppable) {
    if (widthOf() <= maxWidth) break;
    keep.splice(keep.indexOf(i), 1);
    dropped.push(cols[i]!.name);
  }
  const widths = keep.map((i) => cols[i]!.width);
  let truncated = false;
  // Still too wide: shave the widest column a character at a time until it fits (or nothing can give).
  while (tableWidth(widths) > maxWidth) {
    let widest = 0;
    for (let k = 1; k < widths.length; k++) if (widths[k]! > widths[widest]!) widest = k;
    if (widths[widest]! <= MIN_CELL) break;
    widths[widest] = widths[widest]! - 1;
    truncated = true;
  }
  return { keep, widths, dropped, truncated };
}

/** A cell cut to `width` characters, the last one an ellipsis when anything was cut. */
export function cutCell(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}
