// What `-o PATH` names decides how it is written. Only a regular file (or a path that does not exist
// yet) gets the temp-file-and-rename: renaming over `/dev/null`, a FIFO or a socket would replace a
// system object with a regular file, and renaming over a symlink would replace the link instead of
// writing where it points.
import { lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { OutputError, UsageError } from '../../../errors.js';
import { openAtomicFile, type OnInterrupt } from './atomic-file.js';
import { describeFsError } from './fs-error.js';

/** The kinds of path `-o` can name. */
export type TargetKind = 'new' | 'file' | 'fifo' | 'character device' | 'block device' | 'socket' | 'directory';

/** An opened `-o` destination; exactly one of commit/abort ends it. */
export interface OutputTarget {
  stream: Writable;
  /** The path written (the symlink's target for a symlink). */
  path: string;
  kind: TargetKind;
  /** Finish writing (and rename a regular file's temp file onto it). */
  commit(): Promise<void>;
  /** Stop writing; a regular file's target is left as it was, a stream is simply closed. */
  abort(): Promise<void>;
}

function kindOf(st: Stats): TargetKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isFIFO()) return 'fifo';
  if (st.isCharacterDevice()) return 'character device';
  if (st.isBlockDevice()) return 'block device';
  if (st.isSocket()) return 'socket';
  return 'file';
}

/** Where a path really leads: symlinks followed, also a dangling one (its target is created). */
function resolveTarget(target: string): { path: string; kind: TargetKind } {
  let path = resolve(target);
  for (let hops = 0; hops < 40; hops++) {
    let st: Stats;
    try {
      st = lstatSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, kind: 'new' };
      throw new UsageError(`cannot write ${target}: ${describeFsError(err)}`);
    }
    if (!st.isSymbolicLink()) return { path, kind: kindOf(st) };
    try {
      // A link whose target exists resolves at once; a dangling one is followed a hop at a time.
      path = realpathSync(path);
      return { path, kind: kindOf(statSync(path)) };
    } catch {
      path = resolve(dirname(path), readlinkSync(path));
    }
  }
  throw new UsageError(`cannot write ${target}: too many levels of symbolic links`);
}

/** Use to open the `-o` destination: atomic for files, streamed in place for devices, FIFOs and sockets. */
export async function openOutputTarget(target: string, pid: number, onInterrupt?: OnInterrupt): Promise<OutputTarget> {
  const { path, kind } = resolveTarget(target);
  if (kind === 'directory') throw new UsageError(`cannot write ${target}: it is a directory; give a file name`);
  if (kind === 'new' || kind === 'file') {
    const file = await openAtomicFile(path, pid, onInterrupt, target);
    return { stream: file.stream, path, kind, commit: () => file.commit(), abort: () => file.abort() };
  }
  const stream = kind === 'socket' ? createConnection(path) : createWriteStream(path, { flags: 'w' });
  await new Promise<void>((resolveOpen, reject) => {
    const fail = (err: Error): void => reject(new UsageError(`cannot write ${target}: ${describeFsError(err)}`));
    stream.once(kind === 'socket' ? 'connect' : 'open', () => {
      stream.off('error', fail);
      resolveOpen();
    });
    stream.once('error', fail);
  });
  let ended = false;
  return {
    stream,
    path,
    kind,
    async commit() {
      if (ended) return;
      ended = true;
      await new Promise<void>((done, reject) => {
        const fail = (err: Error): void => reject(new OutputError(`cannot write ${target}: ${describeFsError(stream.errored ?? err)}`));
        stream.once('error', fail);
        stream.end((err?: Error | null) => (err ? fail(err) : done()));
      });
    },
    async abort() {
      if (ended) return;
      ended = true;
      stream.destroy();
    },
  };
}
