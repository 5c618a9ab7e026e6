// Writing text to stdout or a file with backpressure, and noticing when the reader is gone
// (`msnap ... | head`: EPIPE), so the export stops quietly instead of crashing.
import type { Writable } from 'node:stream';

/** Use for all data output: `write` returns a promise only when the stream asks us to wait. */
export class OutputSink {
  /** True once nothing more can be written (reader gone, or a write error). */
  closed = false;
  /** A write error other than the reader going away; the run must fail with it. */
  failure: Error | undefined;
  private readonly onError = (err: NodeJS.ErrnoException): void => {
    this.closed = true;
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') this.failure ??= err;
  };

  constructor(private readonly stream: Writable) {
    stream.on('error', this.onError);
  }

  /** Write text; await the result (when there is one) before writing more. */
  write(text: string): Promise<void> | undefined {
    if (this.closed || this.stream.destroyed) {
      this.closed = true;
      return undefined;
    }
    if (this.stream.write(text)) return undefined;
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
    // Keep a no-op listener: a late EPIPE after we are done must not become an uncaught error.
    this.stream.off('error', this.onError);
    this.stream.on('error', () => {});
  }
}
