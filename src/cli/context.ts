// What every command receives instead of reaching for globals: streams, env, clock.
// Built once by the entry point; tests build their own.
import type { Writable } from 'node:stream';
import { EXIT } from '../errors.js';

/** Injected into every command; tests pass fakes (streams they read, a clock they move). */
export interface CliContext {
  stdout: Writable & { isTTY?: boolean };
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

/** The real process's context. */
export function processContext(): CliContext {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    now: () => Date.now(),
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
