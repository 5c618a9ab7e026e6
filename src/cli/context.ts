// What every command receives instead of reaching for globals: streams, env, clock.
// Built once by the entry point; tests build their own.
import type { Writable } from 'node:stream';
import { EXIT } from '../errors.js';
import { dataStdout } from './output/files/stdout-file.js';

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
  /** Resolves after ms, or at once when `signal` aborts (tests may resolve at once and advance their clock). */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Names the -o temp file (`FILE.tmp-<pid>`); defaults to process.pid. */
  pid?: number;
  /** Registers cleanup for SIGINT/SIGTERM (delete a half-written -o file); returns the unregister function. */
  onInterrupt?: (cleanup: () => void) => () => void;
  /**
   * Registers a graceful end for Ctrl-C (`watch`): while registered, the first SIGINT calls `stop`
   * (the command finishes its output and exits 0); a second one interrupts as usual. Returns the
   * unregister function. With `sigterm`, SIGTERM stops gracefully too (a recorder flushes what it
   * received before a service manager's stop).
   */
  onStop?: (stop: () => void, opts?: { sigterm?: boolean }) => () => void;
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
    sleep: abortableSleep,
    pid: process.pid,
    ...processSignals(),
  };
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A SIGINT this soon after the one that began a graceful stop is taken as its echo: `conf`'s
 * atomically (when-exit) answers a SIGINT by raising it again at once, which must not interrupt
 * the stop it began. A person's second Ctrl-C comes later.
 */
const ECHO_MS = 300;

// One SIGINT/SIGTERM handler for the process while anything is registered: a graceful stop takes
// the first Ctrl-C; otherwise every cleanup runs and the process exits with the conventional
// 128+signal code, as the default handler would.
function processSignals(): Pick<CliContext, 'onInterrupt' | 'onStop'> {
  const cleanups = new Set<{ run: () => void }>();
  let stop: (() => void) | undefined;
  let stopOnTerm = false;
  // When a graceful stop began: from then on the handler stays, to take the echo.
  let stoppedAt: number | undefined;
  let installed = false;
  const handler = (signal: NodeJS.Signals): void => {
    if ((signal === 'SIGINT' || (signal === 'SIGTERM' && stopOnTerm)) && stop) {
      const graceful = stop;
      stop = undefined;
      stoppedAt = performance.now();
      graceful();
      return;
    }
    if (signal === 'SIGINT' && stoppedAt !== undefined && performance.now() - stoppedAt < ECHO_MS) return;
    for (const c of cleanups) c.run();
    process.exit(signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated);
  };
  const sync = (): void => {
    const wanted = cleanups.size > 0 || stop !== undefined || stoppedAt !== undefined;
    if (wanted === installed) return;
    installed = wanted;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      if (wanted) process.on(signal, handler);
      else process.off(signal, handler);
    }
  };
  return {
    onInterrupt: (cleanup) => {
      const entry = { run: cleanup };
      cleanups.add(entry);
      sync();
      return () => {
        cleanups.delete(entry);
        sync();
      };
    },
    onStop: (graceful, opts) => {
      stop = graceful;
      stopOnTerm = opts?.sigterm === true;
      sync();
      return () => {
        if (stop === graceful) stop = undefined;
        sync();
      };
    },
  };
}
