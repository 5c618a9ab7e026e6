// `msnap record --raw DIR`: every frame exactly as received, with its receipt time and source, and
// when each connection opened and went down, in hourly gzip JSON-lines files
// (`msnap-raw-YYYY-MM-DDTHH.jsonl.gz`), so a later parser can rebuild a store from them. A run
// appends a new gzip member to the hour's file; a crash loses at most the part not yet flushed.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { createGzip, constants, type Gzip } from 'node:zlib';

/** One line of a raw file: a frame (`frame`), or a connection that opened (`open`) or went down (`down`). */
export type RawLine = { t: number; src: string } & ({ frame: string } | { open: true } | { down: string });

const HOUR_MS = 3_600_000;

/** Use to name the raw file of the hour holding `t`. */
export function rawFileName(t: number): string {
  return `msnap-raw-${new Date(Math.floor(t / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13)}.jsonl.gz`;
}

/** Use for one recording run's raw files. */
export class RawLog {
  private hour = -1;
  private gzip: Gzip | undefined;
  private file: WriteStream | undefined;
  private failure: Error | undefined;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Appends one line; the file rolls over at each hour of `line.t`. Throws the write error of an earlier line. */
  write(line: RawLine): void {
    if (this.failure) throw this.failure;
    const hour = Math.floor(line.t / HOUR_MS);
    if (hour !== this.hour) {
      void this.end();
      this.hour = hour;
      this.file = createWriteStream(path.join(this.dir, rawFileName(line.t)), { flags: 'a' });
      this.gzip = createGzip();
      this.gzip.pipe(this.file);
      this.file.on('error', (err) => (this.failure = err));
    }
    this.gzip!.write(JSON.stringify(line) + '\n');
  }

  /** Pushes what is buffered to the file (called every few seconds, so a crash loses little). */
  flush(): void {
    this.gzip?.flush(constants.Z_SYNC_FLUSH);
  }

  /** Ends the current file's gzip member and waits for it to be written. */
  async end(): Promise<void> {
    const gzip = this.gzip;
    const file = this.file;
    this.gzip = undefined;
    this.file = undefined;
    this.hour = -1;
    if (!gzip || !file) return;
    await new Promise<void>((resolve) => {
      file.once('close', resolve);
      file.once('error', () => resolve());
      gzip.end();
    });
    if (this.failure) throw this.failure;
  }
}
