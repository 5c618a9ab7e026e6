// Where a module strategy went wrong: the file and line of its own code that threw (or that
// called ctx with a bad order), read from the error's stack, so the one line on stderr points at
// the strategy, not at msnap. The stack itself is kept as the error's cause for --verbose.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MsnapError, UsageError } from '../../errors.js';

/** `file:line:column` of the first frame of `stack` in `source` (a file as the user named it), or undefined. */
export function frameIn(stack: string | undefined, source: string): string | undefined {
  if (stack === undefined) return undefined;
  // Node names an ES module by its URL (spaces as %20); a transforming loader by its path.
  const abs = path.resolve(source);
  const names = [pathToFileURL(abs).href, abs];
  for (const line of stack.split('\n')) {
    for (const name of names) {
      const at = line.indexOf(name + ':');
      const m = at < 0 ? null : /^:(\d+):(\d+)/.exec(line.slice(at + name.length));
      if (m) return `${source}:${m[1]}:${m[2]}`;
    }
  }
  return undefined;
}

/**
 * Use when a module's hook throws: one line, `strategy error at FILE:LINE:COL: message (in HOOK at
 * WHERE)`, a UsageError (the strategy is the user's input) carrying the original as its cause.
 * Errors msnap raised for other reasons than the strategy's code keep their class.
 */
export function strategyError(hook: string, where: string, err: unknown, source: string | undefined): MsnapError {
  if (err instanceof MsnapError && !(err instanceof UsageError)) return err;
  const message = err instanceof Error ? err.message : String(err);
  const frame = source !== undefined && err instanceof Error ? frameIn(err.stack, source) : undefined;
  const at = frame ?? source;
  const out = new UsageError(`strategy error${at !== undefined ? ` at ${at}` : ''}: ${message} (in ${hook} at ${where})`);
  (out as { cause?: unknown }).cause = err;
  return out;
}
