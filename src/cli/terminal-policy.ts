// What msnap allows itself on a terminal: colour, a spinner, and how long a table may get.
import type { GlobalOptions } from './global-options.js';

/** A terminal is no place for a table of 100k snapshots; beyond this the table stops with a note. */
export const TABLE_ROW_CAP = 500;

/** The width a terminal stream reports (0 when it reports none). */
function terminalColumns(stream: unknown): number {
  return (stream as { columns?: number }).columns ?? 0;
}

/** Use for a table bound for the terminal `stdout`: fitted to the width it reports, unless --wide. */
export function tableFit(globals: GlobalOptions, stdout: unknown): { tableWidth?: number } {
  const width = terminalColumns(stdout);
  return !globals.wide && width > 0 ? { tableWidth: width } : {};
}

/** Colour is on only for a terminal, without NO_COLOR and without --no-color. */
export function colorEnabled(globals: GlobalOptions, env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  return globals.color !== false && !env.NO_COLOR && isTTY === true;
}

/** Use before starting a progress spinner on stderr: false wherever it would garble or leak escape codes. */
export function spinnerAllowed(
  globals: GlobalOptions,
  env: NodeJS.ProcessEnv,
  stderr: { isTTY?: boolean },
  dataOnTerminal: boolean,
): boolean {
  // A terminal that reports no width (some CI ptys) makes ora's line accounting spin: no spinner there.
  const width = terminalColumns(stderr);
  // NO_COLOR / --no-color promise no escape codes at all, and a spinner is made of them.
  const ansi = colorEnabled(globals, env, stderr.isTTY);
  // Only while the data goes elsewhere: a spinner and a table (or NDJSON) on the same terminal garble each other.
  return !globals.quiet && ansi && !dataOnTerminal && width > 0;
}
