// One open stream: its key, its subscription, and what it has not read yet. Frames go to the socket
// at once (corked per batch: one write per tick, not one per frame); those the socket has not
// written yet are counted, and past the bound the client is closed as too slow, so the server
// holds at most that much for it.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { MarketType } from '../domain/market.js';
import type { Caller } from '../server/auth.js';
import { CLOSE, type Subscription } from './frames.js';

/** How far behind a client may fall before it is closed with 4002. */
export interface Backlog {
  /** Frames handed to the socket and not yet written (BOTS.md: 10,000). */
  maxFrames: number;
  /** Bytes likewise (msnap decision: orderbook frames are large, 10,000 of them would be ~15 MB). */
  maxBytes: number;
}

export const DEFAULT_BACKLOG: Backlog = { maxFrames: 10_000, maxBytes: 16 * 1024 * 1024 };

/** Use per accepted socket; the hub owns it. */
export class StreamClient {
  subscription: Subscription | undefined;
  private coins = new Set<string>();
  private types = new Set<string>();
  /** Frames sent and not yet written to the kernel. */
  private pending = 0;
  lastHeard: number;
  lastPing: number;
  private done = false;
  private batching = false;
  private readonly written = (err?: Error): void => {
    if (!err) this.pending--;
  };

  constructor(
    readonly ws: WebSocket,
    private readonly socket: Duplex,
    readonly caller: Caller,
    now: number,
    private readonly backlog: Backlog,
  ) {
    this.lastHeard = now;
    this.lastPing = now;
  }

  /** False once closed (by either side); the hub drops it. */
  get open(): boolean {
    return !this.done && this.ws.readyState === this.ws.OPEN;
  }

  subscribe(s: Subscription): void {
    this.subscription = s;
    this.coins = new Set(s.coins);
    this.types = new Set(s.marketTypes);
  }

  wants(coin: string, type: MarketType): boolean {
    return this.subscription !== undefined && this.coins.has(coin) && this.types.has(type);
  }

  /** Sends one text frame; closes the client with 4002 instead when it is too far behind. */
  send(frame: Buffer | string): void {
    if (!this.open || (!this.batching && this.tooSlow())) return;
    this.pending++;
    this.ws.send(frame, { binary: false }, this.written);
  }

  /**
   * Runs `fn` (a tick's frames) with the socket corked, so they leave in one write. How far behind
   * the client is, is judged before the batch: frames of the batch itself are not late yet. The
   * server then holds at most the bound plus one tick's frames for it.
   */
  batch(fn: () => void): void {
    if (!this.open || this.tooSlow()) return;
    this.batching = true;
    this.socket.cork();
    try {
      fn();
    } finally {
      this.batching = false;
      // cork() nests: ws's own per-frame cork/uncork pairs stay inside ours.
      this.socket.uncork();
    }
  }

  /** True (and the client closed with 4002) when the socket has not written what it was given. */
  private tooSlow(): boolean {
    if (this.pending < this.backlog.maxFrames && this.ws.bufferedAmount < this.backlog.maxBytes) return false;
    this.close(CLOSE.tooSlow, 'too slow: more than 10,000 frames behind');
    return true;
  }

  close(code: number, reason: string): void {
    if (this.done) return;
    this.done = true;
    this.ws.close(code, reason);
  }
}
