// stdout redirected to a regular file (`msnap ... > out.csv`): Node's own stream for it writes
// each chunk with one writeSync and ignores a short count, so a disk that fills mid-chunk loses
// the rest silently and the export "succeeds". This one writes every byte or fails with the error,
// and then cuts the file back to where the export began: nothing partial is left.
import { fstatSync, ftruncateSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';

/** A synchronous writer to `fd` that retries short writes, so ENOSPC surfaces as an 'error'. */
class FdWriter extends Writable {
  /** Never a terminal: it is used only for a regular file. */
  readonly isTTY = false;
  // The file's size before the export: `>` left it empty, `>>` appends after what it held.
  private readonly startSize: number;
  constructor(private readonly fd: number) {
    super({ decodeStrings: true });
    this.startSize = fstatSync(fd).size;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    try {
      for (let at = 0; at < chunk.length; ) at += writeSync(this.fd, chunk, at, chunk.length - at);
      done();
    } catch (err) {
      try {
        ftruncateSync(this.fd, this.startSize);
      } catch {
        // The write error is what the user needs to hear.
      }
      done(err as Error);
    }
  }
}

/** Use for exports to stdout: an FdWriter when stdout is a regular file, else the process's stdout. */
export function dataStdout(): Writable & { isTTY?: boolean } {
  try {
    if (fstatSync(1).isFile()) return new FdWriter(1);
  } catch {
    // No stdout at all: the process stream reports that when it is written.
  }
  return process.stdout;
}
