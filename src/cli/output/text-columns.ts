// Plain aligned columns for the operator's `serve ... list` commands: a header row and rows of
// cells padded to the widest cell, two spaces apart, no trailing blanks.

/** Use to render a small operator listing as text (rows in, text out). */
export function renderColumns(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n') + '\n';
}
