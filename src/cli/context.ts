// What every command receives instead of reaching for globals: streams, env, clock.
// Built once by the entry point; tests build their own.
import type { Writable } from 'node:stream';
import { EXIT } from '../errors.js';
import { dataStdout } from './output/stdout-file.js';

/** Injected into every command; tests pass fakes (streams they read, a clock they move). */
export interface CliContext {
  stdout: Writable & { isTTY?: boolean };
  /** Where exports to stdout write (default `stdout`): the real process swaps in one that sees a full disk. */
  dataStdout?: () => Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Epoch ms. */
  now: () => number;
  /** Resolves after ms (tests may resolve at once and advance their clock). */
  sleep: (ms: number) => Promise<void>;
  /** Names the -o temp file (`FILE.tmp-<pid>`); defaults to process.pid. */
  pid?: number;
  /** Registers cleanup for SIGINT/SIGTERM (delete a half-written -o file); returns the unregister function. */
  onInterrupt?: (cleanup: () => void) => () => void;
}

/**
 * For tests only: MSNAP_CLOCK_OFFSET_MS (an integer, may be negative) shifts this process's clock,
 * so an end-to-end test can start `serve --live` just before a market boundary.
 */
function clockOffset(env: NodeJS.ProcessEnv): number {
  const raw = env.MSNAP_CLOCK_OFFSET_MS;
  return raw !== undefined && /^-?\d{1,15}$/.test(raw) ? Number(raw) : 0;
}

/** The real process's context. */
export function processContext(): CliContext {
  const offset = clockOffset(process.env);
  return {
    stdout: process.stdout,
    dataStdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    now: offset === 0 ? () => Date.now() : () => Date.now() + offset,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pid: process.pid,
    onInterrupt: (cleanup) => {
      // Exit with the conventional 128+signal code once cleaned up, as the default handler would.
      const handler = (signal: NodeJS.Signals): void => {
        cleanup();
        process.exit(signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated);
      };
      process.once('SIGINT', handler);
      process.once('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
  };
}
