// One open stream: its key, its subscription, and what it has not read yet. Every server frame
// goes through one queue in order; the socket is given at most WRITE_AHEAD_BYTES of it at a time
// and more as it drains. The queue holds the tick's frames themselves, shared with every other
// subscriber, so a client that stops reading costs references, not copies; closing it drops
// them at once, and the close frame follows the little the socket still holds, where the client
// finds it (with its code and reason) whenever it reads again.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { MarketType } from '../domain/market.js';
import type { Caller } from '../server/auth.js';
import { CLOSE, type Subscription } from './frames.js';
import { textFrame } from './wire.js';

/** How far behind a client may fall before it is closed with 4002. */
export interface Backlog {
  /** Frames queued and not yet given to the socket (BOTS.md: 10,000). */
  maxFrames: number;
  /** Bytes not yet taken by the client, queued or in the socket (msnap decision: orderbook frames are large). */
  maxBytes: number;
}

export const DEFAULT_BACKLOG: Backlog = { maxFrames: 10_000, maxBytes: 16 * 1024 * 1024 };

/** Bytes handed to the socket ahead of the client: enough for a tick of an honest client's frames to go in one write. */
const WRITE_AHEAD_BYTES = 64 * 1024;

/** Use per accepted socket; the hub owns it. */
export class StreamClient {
  subscription: Subscription | undefined;
  private coins = new Set<string>();
  private types = new Set<string>();
  /** Frames not yet given to the socket, from `head` on. */
  private queue: Buffer[] = [];
  private head = 0;
  private queuedBytes = 0;
  lastHeard: number;
  lastPing: number;
  private done = false;

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
    socket.on('drain', () => this.pump());
  }

  /** False once closed (by either side); the hub drops it. */
  get open(): boolean {
    return !this.done && this.ws.readyState === this.ws.OPEN;
  }

  /** Bytes sent to this stream that its client has not taken: queued, and in the socket. */
  get unreadBytes(): number {
    return this.queuedBytes + this.socket.writableLength;
  }

  get account(): number {
    return this.caller.account.id;
  }

  get trial(): boolean {
    return this.caller.account.trialEndsAt !== null;
  }

  subscribe(s: Subscription): void {
    this.subscription = s;
    this.coins = new Set(s.coins);
    this.types = new Set(s.marketTypes);
  }

  wants(coin: string, type: MarketType): boolean {
    return this.subscription !== undefined && this.coins.has(coin) && this.types.has(type);
  }

  /** Sends one text frame (replies, pings) after what is queued; closes the client with 4002 instead when it is too far behind. */
  send(frame: string): void {
    this.sendWire([textFrame(Buffer.from(frame))]);
  }

  /**
   * Queues a tick's frames, already framed (wire.ts) and shared by every socket. How far behind
   * the client is, is judged before: the frames of this tick are not late yet, so the server
   * holds at most the bound plus one tick's frames for it. ws writes whole frames synchronously
   * (no compression, no fragments), so ours never land inside one of its own.
   */
  sendWire(frames: Buffer[]): void {
    if (frames.length === 0 || !this.open || this.tooSlow()) return;
    for (const f of frames) {
      this.queue.push(f);
      this.queuedBytes += f.length;
    }
    this.pump();
  }

  /**
   * Gives the socket the next frames while it holds less than WRITE_AHEAD_BYTES, corked into one
   * writev: the socket keeps the shared frames themselves, never a per-client copy, so a client
   * that stops reading makes no garbage for the collector to catch up with.
   */
  private pump(): void {
    if (this.done || this.head === this.queue.length) return;
    let given = this.socket.writableLength;
    if (given >= WRITE_AHEAD_BYTES) return;
    this.socket.cork();
    while (this.head < this.queue.length && given < WRITE_AHEAD_BYTES) {
      const f = this.queue[this.head++]!;
      this.queuedBytes -= f.length;
      given += f.length;
      // Past the socket's own mark write() says false, and 'drain' pumps again.
      this.socket.write(f);
    }
    this.socket.uncork();
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  /** True (and the client closed with 4002) when it has not taken what it was given. */
  private tooSlow(): boolean {
    if (this.queue.length - this.head < this.backlog.maxFrames && this.unreadBytes < this.backlog.maxBytes) return false;
    this.close(CLOSE.tooSlow, `too slow: more than ${this.backlog.maxFrames.toLocaleString('en-US')} frames or ${Math.round(this.backlog.maxBytes / 2 ** 20)} MB behind`);
    return true;
  }

  /** Closes with `code` and `reason`; frames still queued are dropped (the close frame follows what the socket holds). */
  close(code: number, reason: string): void {
    if (this.done) return;
    this.done = true;
    this.queue = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.ws.close(code, reason);
  }
}
