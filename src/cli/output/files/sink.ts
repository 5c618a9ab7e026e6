// Writing text to stdout or a file with backpressure, and noticing when the reader is gone
// (`msnap ... | head`: EPIPE), so the export stops quietly instead of crashing.
import type { Writable } from 'node:stream';
import { OutputError } from '../../../errors.js';
import { describeFsError } from './fs-error.js';

/** Rows are gathered up to this size before a write: one syscall per row costs more than the rows. */
const FLUSH_BYTES = 64 * 1024;

/**
 * Use for all data output: `write` returns a promise only when the stream asks us to wait.
 * Text is batched, but never held back while the producer waits (for the next page): a flush is
 * scheduled with setImmediate, so rows still leave as they arrive.
 */
export class OutputSink {
  /** True once nothing more can be written (reader gone, or a write error). */
  closed = false;
  /** A write error other than the reader going away (disk full): the run must fail with it. */
  failure: OutputError | undefined;
  private readonly onError = (err: NodeJS.ErrnoException): void => {
    this.closed = true;
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') {
      this.failure ??= new OutputError(`cannot write ${this.name}: ${describeFsError(err)}`);
    }
  };

  /** `name`: where the output goes as the user named it (`stdout`, the -o path), for that message. */
  constructor(
    private readonly stream: Writable,
    private readonly name: string = 'the output',
  ) {
    stream.on('error', this.onError);
  }

  private pending: string[] = [];
  private pendingBytes = 0;
  private scheduled: NodeJS.Immediate | undefined;

  /** Write text; await the result (when there is one) before writing more. */
  write(text: string): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= FLUSH_BYTES) return this.flush();
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      void this.flush();
    });
    return undefined;
  }

  /** Write binary data (Parquet) after any batched text; await the result when there is one. */
  writeBytes(bytes: Uint8Array): Promise<void> | undefined {
    if (this.closed) return undefined;
    const text = this.flush();
    if (text) return text.then(() => this.writeBytes(bytes));
    return this.send(bytes);
  }

  /** Write out what is batched; call (and await) before the output is considered complete. */
  flush(): Promise<void> | undefined {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
    }
    if (this.pending.length === 0) return undefined;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    return this.send(chunk);
  }

  private send(chunk: string | Uint8Array): Promise<void> | undefined {
    if (this.closed || this.stream.destroyed) {
      this.closed = true;
      return undefined;
    }
    if (this.stream.write(chunk)) return undefined;
    return new Promise((resolve) => {
      const done = (): void => {
        this.stream.off('drain', done);
        this.stream.off('close', done);
        this.stream.off('error', done);
        resolve();
      };
      this.stream.once('drain', done);
      this.stream.once('close', done);
      this.stream.once('error', done);
    });
  }

  /** Stop listening; the stream itself stays open (stdout belongs to the process). */
  detach(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    // Keep a no-op listener: a late EPIPE after we are done must not become an uncaught error.
    this.stream.off('error', this.onError);
    this.stream.on('error', () => {});
  }
}
