// `-o FILE`: write to FILE.tmp-<pid> beside it and rename on success, so an interrupted or failed
// export never leaves a truncated FILE behind (and never clobbers a good one).
import { createWriteStream, renameSync, unlinkSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../../errors.js';

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

/** Use to open the -o target; fails with a UsageError when the directory cannot be written. */
export async function openAtomicFile(target: string, pid: number, onInterrupt?: OnInterrupt): Promise<AtomicFile> {
  const tempPath = join(dirname(target), `${basename(target)}.tmp-${pid}`);
  const stream = createWriteStream(tempPath, { flags: 'w', mode: 0o644 });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err) => reject(new UsageError(`cannot write ${target}: ${(err as Error).message}`)));
  });
  const removeTemp = (): void => {
    try {
      unlinkSync(tempPath);
    } catch {
      // Already gone: nothing to clean.
    }
  };
  const unregister = onInterrupt?.(() => {
    stream.destroy();
    removeTemp();
  });
  let ended = false;
  return {
    stream,
    tempPath,
    async commit() {
      if (ended) return;
      ended = true;
      unregister?.();
      await new Promise<void>((resolve, reject) => {
        stream.once('error', reject);
        stream.end(() => resolve());
      });
      try {
        renameSync(tempPath, target);
      } catch (err) {
        removeTemp();
        throw new UsageError(`cannot write ${target}: ${(err as Error).message}`);
      }
    },
    async abort() {
      if (ended) return;
      ended = true;
      unregister?.();
      await new Promise<void>((resolve) => {
        if (stream.closed) return resolve();
        stream.once('close', () => resolve());
        stream.destroy();
      });
      removeTemp();
    },
  };
}
