// One open stream: its key, its subscription, and what it has not read yet. Frames go to the socket
// at once (one write per tick, not one per frame); those the socket has not written yet are
// counted, and past the bound the client is closed as too slow, so the server holds at most that
// much for it.
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
  private readonly written = (err?: Error): void => {
    if (!err) this.pending--;
  };

  constructor(
    readonly ws: WebSocket,
    private readonly socket: Duplex,
    readonly caller: Caller,
    /** The key as presented (checked again while open). */
    readonly key: string,
    now: number,
    private readonly backlog: Backlog,
    /** Its hold on one of the key's stream slots (null: the plan has no cap). */
    readonly hold: { key: string; member: string } | null,
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

  /** Sends one text frame (through ws: replies, pings); closes the client with 4002 instead when it is too far behind. */
  send(frame: string): void {
    if (!this.open || this.tooSlow()) return;
    this.pending++;
    this.ws.send(frame, this.written);
  }

  /**
   * Writes a tick's frames, already framed (wire.ts) and shared by every socket, in one write. How
   * far behind the client is, is judged before: the frames of this tick are not late yet, so the
   * server holds at most the bound plus one tick's frames for it. ws writes whole frames
   * synchronously (no compression, no fragments), so ours never land inside one of its own.
   */
  sendWire(frames: Buffer[]): void {
    if (frames.length === 0 || !this.open || this.tooSlow()) return;
    const n = frames.length;
    this.pending += n;
    this.socket.write(n === 1 ? frames[0]! : Buffer.concat(frames), (err) => {
      if (!err) this.pending -= n;
    });
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
