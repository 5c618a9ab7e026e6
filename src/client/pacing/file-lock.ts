// A lock between processes on one machine: a file created exclusively (O_EXCL), holding its
// owner's pid and a token. It guards a read-modify-write of a small file, well under a
// millisecond, so a waiter polls it every millisecond. A lock whose owner died, or that has
// been held implausibly long (a hung owner, or a recycled pid), is broken, so a process that
// dies never blocks the others. Breaking is check-then-unlink: two waiters breaking the same
// stale lock at the same instant could both get in once; what they guard must survive that.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';

/** A lock held longer than this is taken to be abandoned, whatever its owner's state. */
export const STALE_LOCK_MS = 2000;
/** Waiting longer than this for a live owner gives up (the caller then works without the lock). */
const LOCK_TIMEOUT_MS = 5000;

const pause = new Int32Array(new SharedArrayBuffer(4));

function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

/** True unless the process certainly does not exist (EPERM: it exists, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function readText(lockPath: string): string | undefined {
  try {
    return readFileSync(lockPath, 'utf8');
  } catch {
    return undefined;
  }
}

function readLock(lockPath: string): { text: string; ageMs: number } | undefined {
  try {
    const text = readFileSync(lockPath, 'utf8');
    return { text, ageMs: Date.now() - statSync(lockPath).mtimeMs };
  } catch {
    return undefined;
  }
}

function isStale(lock: { text: string; ageMs: number }): boolean {
  if (lock.ageMs > STALE_LOCK_MS) return true;
  const pid = Number(lock.text.split(' ')[0]);
  // An empty file is a lock being written this very moment.
  return Number.isInteger(pid) && pid > 0 && !processAlive(pid);
}

function tryCreate(lockPath: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Run `fn` holding the lock at `lockPath`; throws (before `fn`) if it cannot be had. */
export function withFileLock<T>(lockPath: string, fn: () => T, timeoutMs = LOCK_TIMEOUT_MS): T {
  const token = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const deadline = Date.now() + timeoutMs;
  while (!tryCreate(lockPath, token)) {
    const lock = readLock(lockPath);
    if (lock && isStale(lock)) {
      // Only the lock we judged: another waiter may already have replaced it.
      if (readLock(lockPath)?.text === lock.text) {
        try {
          unlinkSync(lockPath);
        } catch {
          // Someone else broke it first.
        }
      }
      continue;
    }
    if (Date.now() > deadline) throw new Error(`lock ${lockPath} held by a live process for over ${timeoutMs} ms`);
    sleepSync(1);
  }
  try {
    return fn();
  } finally {
    // Never remove a lock that was broken and taken over while we held it.
    if (readText(lockPath) === token) {
      try {
        unlinkSync(lockPath);
      } catch {
        // Already gone.
      }
    }
  }
}
