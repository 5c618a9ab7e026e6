// One live WebSocket source (the CLOB market channel, RTDS) kept connected: subscribes on every
// connect, sends the keep-alive PING, and on a drop, a close or a stall (no frame for a while)
// reconnects after a capped, jittered backoff. Frames are handed on as received with the clock's
// time; the owner hears when the connection opens and when it goes down, to mark gaps.
import WebSocket from 'ws';
import { backoffMs, type BackoffPolicy } from '../../client/transport/backoff.js';

/** How a feed connects and what it tells its owner. */
export interface SocketFeedOptions {
  /** Names the source in log lines (`clob`, `rtds`). */
  name: string;
  url: string;
  /** The messages to send on each connect (asked again at every reconnect). */
  subscribe: () => string[];
  now: () => number;
  onOpen: (at: number) => void;
  onFrame: (text: string, at: number) => void;
  onDown: (at: number, reason: string) => void;
  log: (line: string) => void;
  /** Keep-alive: the text PING every this many ms. */
  pingMs: number;
  /** No frame for this long: the connection is taken for dead. */
  stallMs: number;
  backoff: BackoffPolicy;
  random?: () => number;
}

/** Use per source: start() once, send() subscriptions later, close() at the end. */
export class SocketFeed {
  private ws: WebSocket | undefined;
  private retry = 0;
  private closed = false;
  private up = false;
  private timers: NodeJS.Timeout[] = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private lastFrame = 0;
  /** Connections made, and dropped (by the source or a stall). */
  readonly counts = { connects: 0, drops: 0, stalls: 0 };

  constructor(private readonly o: SocketFeedOptions) {}

  /** True while connected. */
  get connected(): boolean {
    return this.up;
  }

  start(): void {
    this.connect();
  }

  /** Sends a message now when connected (subscribe() covers the next connect). */
  send(message: string): void {
    if (this.up) this.ws?.send(message);
  }

  /** Closes for good: no reconnect. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return this.down('closed by msnap');
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => ws.terminate(), 1000);
      ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      ws.close();
    });
  }

  private connect(): void {
    if (this.closed) return;
    const ws = new WebSocket(this.o.url, { perMessageDeflate: false, handshakeTimeout: this.o.stallMs });
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      this.up = true;
      this.counts.connects++;
      this.lastFrame = Date.now();
      this.o.onOpen(this.o.now());
      this.o.log(`${this.o.name}: connected to ${this.o.url}`);
      for (const m of this.o.subscribe()) ws.send(m);
      this.timers.push(setInterval(() => ws.readyState === WebSocket.OPEN && ws.send('PING'), this.o.pingMs));
      this.timers.push(
        setInterval(() => {
          if (Date.now() - this.lastFrame < this.o.stallMs) return;
          this.counts.stalls++;
          this.lost(ws, `no frame for ${Math.round(this.o.stallMs / 1000)} s`);
        }, Math.min(1000, this.o.stallMs / 4)),
      );
    });
    ws.on('message', (data, isBinary) => {
      if (this.ws !== ws) return;
      this.lastFrame = Date.now();
      // A frame that opened a good connection resets the backoff.
      this.retry = 0;
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      this.o.onFrame(text, this.o.now());
    });
    ws.on('error', (err) => this.lost(ws, err.message));
    ws.on('close', (code) => this.lost(ws, `closed (${code})`));
  }

  private lost(ws: WebSocket, reason: string): void {
    if (this.ws !== ws) return;
    this.ws = undefined;
    ws.removeAllListeners('message');
    ws.on('error', () => {});
    ws.terminate();
    this.down(reason);
    if (this.closed) return;
    const wait = backoffMs(this.retry++, this.o.random ?? Math.random, this.o.backoff);
    this.o.log(`${this.o.name}: ${reason}; reconnecting in ${(wait / 1000).toFixed(1)} s`);
    this.reconnectTimer = setTimeout(() => this.connect(), wait);
  }

  private down(reason: string): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (!this.up) return;
    this.up = false;
    if (!this.closed) this.counts.drops++;
    this.o.onDown(this.o.now(), reason);
  }
}
