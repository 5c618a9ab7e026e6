// GET /v1/stream for a whole server: one ticker (not one per client) reads what became visible on
// the data clock since its last tick and fans it out to every subscriber, each frame encoded once.
// It also pings, closes idle and too-slow clients, counts open streams per key, and says `end`
// when a replay stops. Time comes from injected clocks, so tests drive it tick by tick.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { PLANS } from '../domain/plans.js';
import type { ServerClock } from '../replay/server-clock.js';
import { authenticate, type Caller, type KeyHasher } from '../server/auth.js';
import { errorBody, HttpException, reasonPhrase } from '../server/http-error.js';
import { RateLimits, rateLimitHeaders } from '../server/rate-limit.js';
import { unavailableError } from '../server/unavailable.js';
import type { SharedLimiter } from '../ratelimit/shared-limiter.js';
import type { Store } from '../store/store.js';
import { admit, STREAM_PATHS } from './admit.js';
import { CLOSE, END_FRAME, errorFrame, PING_FRAME, readClientFrame, subscribedFrame } from './frames.js';
import { DEFAULT_BACKLOG, StreamClient, type Backlog } from './stream-client.js';
import { overBudget, streamLimits, type StreamLimits } from './stream-budget.js';
import { SLOT_RENEW_MS, StreamSlots, type Hold } from './stream-slots.js';
import { WindowRanks } from './window-ranks.js';
import { readVisible } from './visible-feed.js';

/** Options of StreamHub; the intervals are the protocol's, tests shorten nothing but drive `tick`. */
export interface StreamHubOptions {
  /** The unbounded store; the hub bounds every read by the data clock itself. */
  store: Store;
  /** The server's data clock (mode, where a replay ends). */
  clock: ServerClock;
  /** The data time everything up to which is in the store: the replay clock's now, or how far the live world is written. */
  visibleThrough: () => number;
  /** Wall time, for pings and idleness. */
  wall: () => number;
  limiter: SharedLimiter;
  hashKey: KeyHasher;
  log: (line: string) => void;
  /** Schedules the tick (default setInterval, unref'd); tests pass their own and call tick(). */
  every?: (fn: () => void, ms: number) => () => void;
  tickMs?: number;
  pingMs?: number;
  idleMs?: number;
  backlog?: Backlog;
  /** Unread bytes per account, trial account and server (DEFAULT_STREAM_LIMITS' where not given). */
  limits?: Partial<StreamLimits>;
}

/** How long a refused upgrade's socket waits for the client to close it. */
const REFUSAL_LINGER_MS = 2000;

/** Largest frame a client may send: subscribe frames are small (msnap decision). */
const MAX_CLIENT_FRAME_BYTES = 4096;
/**
 * At most this much data time is read in one tick (15 series at 8/s: at most 7,200 snapshots), so
 * one tick's batch stays under the 10,000-frame bound; a replay faster than 480x (at 125 ms ticks)
 * falls behind its clock but skips nothing.
 */
const MAX_TICK_SPAN_MS = 60_000;

/** Use once per server in live and replay mode; `upgrade` goes on the HTTP server's upgrade event. */
export class StreamHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, perMessageDeflate: false, clientTracking: false });
  private readonly clients = new Set<StreamClient>();
  private readonly slots: StreamSlots;
  private lastRenew: number;
  private readonly limits: RateLimits;
  private readonly ranks: WindowRanks;
  private readonly budget: StreamLimits;
  private through: number;
  private ended = false;
  private ticking = false;
  private failing = false;
  private cancel: (() => void) | undefined;

  constructor(private readonly opts: StreamHubOptions) {
    this.limits = new RateLimits(opts.limiter);
    this.slots = new StreamSlots(opts.limiter.slots);
    this.ranks = new WindowRanks(opts.store);
    this.budget = streamLimits(opts.limits);
    this.through = opts.visibleThrough();
    this.lastRenew = opts.wall();
  }

  /** Open streams now. */
  get size(): number {
    return this.clients.size;
  }

  start(): void {
    const every = this.opts.every ?? defaultEvery;
    this.cancel ??= every(() => void this.tick(), this.opts.tickMs ?? 125);
  }

  /** Use on the HTTP server's `upgrade` event; `address` is the client (behind a trusted proxy, the forwarded one). */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer, address: string): void => {
    socket.on('error', () => {});
    const url = req.url ?? '/';
    const path = url.split('?', 1)[0]!;
    const at = this.opts.wall();
    if (!STREAM_PATHS.includes(path)) {
      void this.limits.takeAddress(address, at).then(
        (d) => refuse(socket, 404, { 'Content-Type': 'application/json; charset=utf-8', ...rateLimitHeaders(d) }, errorBody(404, 'No such endpoint; the stream is at /v1/stream.')),
        () => socket.destroy(),
      );
      return;
    }
    void admit(req.method ?? 'GET', url, req.headers, address, at, { store: this.opts.store, limits: this.limits, hashKey: this.opts.hashKey, log: this.opts.log }).then(
      (a) => {
        if (!a.ok) return refuse(socket, a.status, a.headers, a.body);
        // The slot is taken once the handshake is done: a handshake ws refuses takes none.
        this.wss.handleUpgrade(req, socket, head, (ws) => {
          ws.on('error', () => {});
          // Frames the client sends while the slot is being taken wait in the socket.
          ws.pause();
          void this.takeSlot(ws, socket, a.caller, a.key);
        });
      },
      () => socket.destroy(),
    );
  };

  /** Attaches an upgraded socket once it holds one of its key's slots; closes it (4008, or 1013 while the slots' store is away) otherwise. */
  private async takeSlot(ws: WebSocket, socket: Duplex, caller: Caller, key: string): Promise<void> {
    let hold: Hold | null | undefined;
    try {
      hold = await this.slots.take(caller, this.opts.wall());
    } catch (err) {
      // Read again, or the client's answer to the close would never be seen.
      ws.resume();
      if (!unavailableError(err)) this.opts.log(`msnap serve: stream slot failed: ${err instanceof Error ? err.message : String(err)}`);
      return void ws.close(CLOSE.tryAgainLater, 'the stream limiter is unavailable; try again later');
    }
    if (hold !== undefined && ws.readyState === ws.OPEN) this.attach(ws, socket, caller, key, hold);
    ws.resume();
    if (hold === undefined) ws.close(CLOSE.tooManyStreams, `this key already has ${PLANS[caller.account.plan].maxStreamsPerKey} open streams (its plan's limit)`);
    // The client left while the slot was being taken.
    else if (ws.readyState !== ws.OPEN && hold) this.slots.release(hold);
  }

  private attach(ws: WebSocket, socket: Duplex, caller: Caller, key: string, hold: Hold | null): void {
    const client = new StreamClient(ws, socket, caller, key, this.opts.wall(), this.opts.backlog ?? DEFAULT_BACKLOG, hold);
    this.clients.add(client);
    ws.on('close', () => {
      this.clients.delete(client);
      if (hold) this.slots.release(hold);
    });
    ws.on('ping', () => (client.lastHeard = this.opts.wall()));
    ws.on('message', (data, isBinary) => {
      client.lastHeard = this.opts.wall();
      if (isBinary) return client.send(errorFrame('invalid_frame', 'Frames are JSON text; binary frames are not read.'));
      const frame = readClientFrame(data.toString());
      if (frame.kind === 'error') return client.send(frame.frame);
      if (frame.kind === 'keepalive') return;
      client.subscribe(frame.subscription);
      client.send(subscribedFrame(frame.subscription));
      if (this.ended) client.send(END_FRAME);
    });
  }

  /** One step: pings and idle closes on the wall clock, then what became visible, to its subscribers. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      this.keepAlive();
      this.shedSlow();
      await this.fanOut();
    } finally {
      this.ticking = false;
    }
  }

  private keepAlive(): void {
    const now = this.opts.wall();
    if (now - this.lastRenew >= SLOT_RENEW_MS) {
      this.lastRenew = now;
      this.slots.renew(holdsOf(this.clients), now);
      void this.recheckKeys(now);
    }
    const idleMs = this.opts.idleMs ?? 60_000;
    const pingMs = this.opts.pingMs ?? 25_000;
    for (const c of this.clients) {
      if (now - c.lastHeard >= idleMs) c.close(CLOSE.idle, `idle: no frame from the client for ${Math.round(idleMs / 1000)} s`);
      else if (now - c.lastPing >= pingMs) {
        c.lastPing = now;
        c.send(PING_FRAME);
      }
    }
  }

  /** Closes the streams furthest behind while an account's or the server's budget is spent (before this tick's frames, which are not late yet). */
  private shedSlow(): void {
    const open = [...this.clients].filter((c) => c.open);
    for (const [c, reason] of overBudget(open, this.budget)) c.close(CLOSE.tooSlow, reason);
  }

  /** A key revoked or expired (or its trial ended) while its streams are open closes them (1008), checked as often as holds are renewed. */
  private async recheckKeys(now: number): Promise<void> {
    const byKey = new Map<string, StreamClient[]>();
    for (const c of this.clients) byKey.set(c.key, [...(byKey.get(c.key) ?? []), c]);
    for (const [key, clients] of byKey) {
      try {
        await authenticate({ 'x-api-key': key }, this.opts.store, now, this.opts.hashKey);
      } catch (err) {
        // Only a definite refusal closes; an unreachable store leaves the streams be.
        if (!(err instanceof HttpException)) continue;
        for (const c of clients) c.close(CLOSE.policy, err.message.slice(0, 120));
      }
    }
  }

  private async fanOut(): Promise<void> {
    const target = Math.min(this.opts.visibleThrough(), this.through + MAX_TICK_SPAN_MS);
    const listening = [...this.clients].filter((c) => c.open && c.subscription);
    if (target > this.through) {
      if (listening.length === 0) {
        this.through = target;
      } else {
        let events;
        try {
          const books = listening.some((c) => c.subscription!.orderbook);
          events = await readVisible(this.opts.store, this.through, target, books);
          if (listening.some((c) => PLANS[c.caller.account.plan].dataWindow)) await this.ranks.prepare(events, target);
          this.healthy();
        } catch (err) {
          // The store is unreachable (a PostgreSQL restart): the next tick reads the same window again.
          return this.failed(err);
        }
        this.through = target;
        for (const c of listening) {
          const window = PLANS[c.caller.account.plan].dataWindow;
          const withBook = c.subscription!.orderbook;
          const frames: Buffer[] = [];
          for (const e of events) {
            if (c.wants(e.market.coin, e.market.market_type) && (!window || this.ranks.inWindow(e.market, window))) frames.push(e.wire(withBook));
          }
          c.sendWire(frames);
        }
      }
    }
    const until = this.opts.clock.read().until;
    if (!this.ended && until !== null && this.through >= until) {
      this.ended = true;
      for (const c of listening) c.send(END_FRAME);
    }
  }

  private failed(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.opts.log(`msnap serve: stream update failed: ${err instanceof Error ? err.message : String(err)} (retrying every tick)`);
  }

  private healthy(): void {
    if (!this.failing) return;
    this.failing = false;
    this.opts.log('msnap serve: stream updates running again');
  }

  /** Stops the ticker and closes every stream (1001); streams not closed within `graceMs` are cut. */
  async close(graceMs = 1000): Promise<void> {
    this.cancel?.();
    const open = [...this.clients];
    for (const c of open) c.close(1001, 'server shutting down');
    const closed = Promise.all(open.map((c) => new Promise<void>((resolve) => (c.ws.readyState === c.ws.CLOSED ? resolve() : c.ws.once('close', () => resolve())))));
    let timer: NodeJS.Timeout | undefined;
    const cut = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([closed, cut]);
    clearTimeout(timer);
    for (const c of open) c.ws.terminate();
  }
}

/** Writes an HTTP refusal on a socket that asked to upgrade, then closes it. */
function refuse(socket: Duplex, status: number, headers: Record<string, string>, body: string): void {
  if (!socket.writable) return void socket.destroy();
  const head = [`HTTP/1.1 ${status} ${reasonPhrase(status)}`];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  head.push(`Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', '');
  socket.end(head.join('\r\n') + body);
  // A client that never closes its side must not hold the socket (nor the server's close) open.
  setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
}

function* holdsOf(clients: Iterable<StreamClient>): Iterable<Hold> {
  for (const c of clients) if (c.hold) yield c.hold;
}

function defaultEvery(fn: () => void, ms: number): () => void {
  const timer = setInterval(fn, ms);
  // The server keeps the process alive; the stream's ticker alone must not.
  timer.unref();
  return () => clearInterval(timer);
}
