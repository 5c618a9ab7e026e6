// A strategy's console output is the user's debugging, never data: while strategy code runs in a
// process whose stdout carries the result (`--format json`, CSV), console.log and its kin write to
// stderr instead, so a strategy that logs can no longer corrupt the output.
import { Console } from 'node:console';

/** The console methods that write; console.log, info, debug, dir, table and group go to stdout by default. */
const WRITERS = ['log', 'info', 'debug', 'dir', 'dirxml', 'table', 'group', 'groupCollapsed', 'groupEnd', 'count', 'countReset', 'time', 'timeEnd', 'timeLog', 'trace', 'warn', 'error', 'assert'] as const;

/**
 * Use around strategy code (a backtest run, a sweep worker thread): the global console writes to
 * stderr until the returned function restores it.
 */
export function consoleToStderr(): () => void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const global = console as unknown as Record<string, unknown>;
  const saved = WRITERS.map((k) => [k, global[k]] as const);
  for (const k of WRITERS) global[k] = (toStderr[k] as (...a: unknown[]) => void).bind(toStderr);
  return () => {
    for (const [k, f] of saved) global[k] = f;
  };
}
