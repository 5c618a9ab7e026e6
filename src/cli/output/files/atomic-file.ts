// `-o FILE`: write to FILE.tmp-<pid> beside it and rename on success, so an interrupted or failed
// export never leaves a truncated FILE behind (and never clobbers a good one).
import { createWriteStream, renameSync, statSync, unlinkSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { OutputError, UsageError } from '../../../errors.js';
import { describeFsError } from './fs-error.js';

/** An output file being written; exactly one of commit/abort ends it. */
export interface AtomicFile {
  stream: WriteStream;
  tempPath: string;
  /** Flush, close and rename the temp file onto the target. */
  commit(): Promise<void>;
  /** Close and delete the temp file; the target is untouched. */
  abort(): Promise<void>;
}

/** Registers a cleanup to run on SIGINT/SIGTERM; returns the unregister function. */
export type OnInterrupt = (cleanup: () => void) => () => void;

/**
 * Use (through openOutputTarget) for a regular file or a new path; fails with a UsageError when the
 * directory cannot be written. `shownAs` is the path as the user gave it, for messages.
 */
export async function openAtomicFile(
  target: string,
  pid: number,
  onInterrupt?: OnInterrupt,
  shownAs: string = target,
): Promise<AtomicFile> {
  const tempPath = join(dirname(target), `${basename(target)}.tmp-${pid}`);
  const removeTemp = (): void => {
    try {
      unlinkSync(tempPath);
    } catch {
      // Already gone (or never created): nothing to clean.
    }
  };
  // A file being replaced keeps its permissions (a 0600 export stays private).
  let mode = 0o644;
  try {
    mode = statSync(target).mode & 0o777;
  } catch {
    // New file: the default mode.
  }
  // Room for a page or two in flight: the next page is rendered while the last one is written.
  const opened = createWriteStream(tempPath, { flags: 'w', mode, highWaterMark: 1 << 20 });
  // Registered in the same tick as the stream, before the file is created on the thread pool: a
  // signal arriving while it is being opened must still remove it, not fall through to the
  // default handler and leave it behind.
  const unregister = onInterrupt?.(() => {
    opened.destroy();
    removeTemp();
  });
  try {
    await new Promise<void>((resolve, reject) => {
      opened.once('open', () => resolve());
      opened.once('error', (err) => reject(new UsageError(`cannot write ${shownAs}: ${describeFsError(err, tempPath)}`)));
    });
  } catch (err) {
    unregister?.();
    throw err;
  }
  let ended = false;
  return {
    stream: opened,
    tempPath,
    async commit() {
      if (ended) return;
      ended = true;
      unregister?.();
      // A write that failed (disk full) fails the end too: the temp file goes, the target stays.
      try {
        await new Promise<void>((resolve, reject) => {
          opened.once('error', reject);
          opened.end((err?: Error | null) => (err ? reject(err) : resolve()));
        });
      } catch (err) {
        removeTemp();
        // A write that failed earlier destroyed the stream: its own error is the reason, not end()'s.
        throw new OutputError(`cannot write ${shownAs}: ${describeFsError(opened.errored ?? err)}`);
      }
      try {
        renameSync(tempPath, target);
      } catch (err) {
        removeTemp();
        throw new UsageError(`cannot write ${shownAs}: ${describeFsError(err)}`);
      }
    },
    async abort() {
      if (ended) return;
      ended = true;
      unregister?.();
      await new Promise<void>((resolve) => {
        if (opened.closed) return resolve();
        opened.once('close', () => resolve());
        opened.destroy();
      });
      removeTemp();
    },
  };
}
