// A live stream's events filed by market, for a watch that takes one market at a time: the frames
// of the market being watched are taken in order, those of a later market of the series are held
// until the watch gets to it, and each market's resolution is remembered.
import type { Snapshot } from '../../domain/market.js';
import type { SnapshotStream, StreamEvent } from './stream-events.js';

/** Where the stream stands: `open`, the replay's `end`, or `lost` (closed: polling takes over). */
export type FeedState = 'open' | 'end' | 'lost';

/** Use one per stream; `pump` waits for the next events and files them. */
export class StreamFeed {
  state: FeedState = 'open';
  /** Why the stream was lost (its close code and reason), for the note. */
  lostBecause = '';
  private held = new Map<string, Snapshot[]>();
  private resolved = new Set<string>();

  constructor(readonly stream: SnapshotStream) {}

  /** The snapshots of `id` received and not taken yet, oldest first (taken now). */
  take(id: string): Snapshot[] {
    const rows = this.held.get(id) ?? [];
    this.held.delete(id);
    return rows;
  }

  /** True once the stream said `id` resolved. */
  isResolved(id: string): boolean {
    return this.resolved.has(id);
  }

  /** Forget the markets before `id` (their frames can no longer be used). */
  drop(id: string): void {
    this.held.delete(id);
    this.resolved.delete(id);
  }

  /** Wait for the next event (or `signal`), then file it and every one already received. */
  async pump(signal: AbortSignal): Promise<void> {
    if (this.state !== 'open' || signal.aborted) return;
    let stop: (() => void) | undefined;
    const aborted = new Promise<undefined>((resolve) => {
      stop = () => resolve(undefined);
      signal.addEventListener('abort', stop, { once: true });
    });
    try {
      let event = await Promise.race([this.stream.next(), aborted]);
      while (event) {
        this.file(event);
        if (this.state !== 'open' || this.stream.buffered === 0) return;
        event = await this.stream.next();
      }
    } finally {
      signal.removeEventListener('abort', stop!);
    }
  }

  private file(event: StreamEvent): void {
    switch (event.type) {
      case 'snapshot': {
        const id = event.snapshot.market_id;
        const rows = this.held.get(id);
        if (rows) rows.push(event.snapshot);
        else this.held.set(id, [event.snapshot]);
        return;
      }
      case 'market_resolved':
        this.resolved.add(event.market.market_id);
        return;
      case 'market_open':
        return;
      case 'end':
        this.state = 'end';
        return;
      case 'closed':
        this.state = 'lost';
        this.lostBecause = `${event.code}${event.reason ? ` ${event.reason}` : ''}`;
    }
  }
}
