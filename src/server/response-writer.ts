// Writing answers to clients that may not read them. A body is written in chunks, each only once
// the socket has taken the previous one ('drain'), so a slow reader holds one body, not a copy in
// every buffer; a response that makes no progress for `stallMs` is dropped with its connection.
// One connection answers one request at a time (pipelined ones wait their turn; with too many
// waiting the connection is not read until they are answered),
// and all bodies waiting for their readers share a byte budget: past it the server answers 503
// with Retry-After until readers catch up, instead of growing without bound.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Limits of the bytes the server holds for clients that have not read them yet. */
export interface ResponseLimits {
  /** Bytes of response bodies held at once over all connections (default 64 MiB). */
  totalBytes: number;
  /** A response whose client takes nothing for this many ms is dropped (default 30 s). */
  stallMs: number;
  /** Pipelined requests waiting behind a connection's current answer before it stops reading (default 32). */
  queuedPerConnection: number;
}

/** Defaults of ResponseLimits; `serve` takes MSNAP_RESPONSE_BUDGET_MB and MSNAP_WRITE_STALL_MS. */
const DEFAULT_RESPONSE_LIMITS: ResponseLimits = { totalBytes: 64 * 1024 * 1024, stallMs: 30_000, queuedPerConnection: 32 };

const CHUNK = 64 * 1024;

/** What the listener writes: an API answer, or a dashboard page (whose Set-Cookie may repeat). */
export interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: string;
}

/** Use one per server: per-connection turns and the shared byte budget. */
export class ResponseBudget {
  private held = 0;
  private readonly turns = new WeakMap<Socket, { tail: Promise<void>; waiting: number }>();

  readonly limits: ResponseLimits;

  /** Limits not given (or undefined) are DEFAULT_RESPONSE_LIMITS'. */
  constructor(limits: Partial<ResponseLimits> = {}) {
    this.limits = {
      totalBytes: limits.totalBytes ?? DEFAULT_RESPONSE_LIMITS.totalBytes,
      stallMs: limits.stallMs ?? DEFAULT_RESPONSE_LIMITS.stallMs,
      queuedPerConnection: limits.queuedPerConnection ?? DEFAULT_RESPONSE_LIMITS.queuedPerConnection,
    };
  }

  /** Bytes of bodies held now. */
  get heldBytes(): number {
    return this.held;
  }

  /** True when a body of `bytes` more would pass the budget (0: whether it is spent already). */
  over(bytes = 0): boolean {
    return this.held > 0 && this.held + bytes > this.limits.totalBytes;
  }

  /**
   * Use for every request: runs `answer` once the connection's previous answers are written, then
   * writes its result (undefined or a throw drops the connection).
   */
  serve(socket: Socket, res: ServerResponse, answer: () => Promise<Answer | undefined>): void {
    // `res.socket` is null until the answers before it are done: the request's socket is the key.
    const turn = this.turns.get(socket) ?? { tail: Promise.resolve(), waiting: 0 };
    // Enough waiting: read no more requests (one read can still hold a few more) until they are answered.
    if (++turn.waiting >= this.limits.queuedPerConnection) socket.pause();
    turn.tail = turn.tail.then(async () => {
      if (--turn.waiting < this.limits.queuedPerConnection && socket.isPaused()) socket.resume();
      // A pipelined answer's `res` learns nothing of a closed connection: ask the socket.
      if (res.destroyed || socket.destroyed) return;
      try {
        const a = await answer();
        if (a && !socket.destroyed) await this.write(socket, res, a);
        else res.destroy();
      } catch {
        res.destroy();
      }
    });
    this.turns.set(socket, turn);
  }

  /** Writes `a` in chunks as the client takes them; resolves when done or dropped. */
  private write(socket: Socket, res: ServerResponse, a: Answer): Promise<void> {
    if (res.destroyed) return Promise.resolve();
    const body = Buffer.from(a.body);
    // The text is no longer needed: only the bytes are held while the client reads.
    a.body = '';
    res.writeHead(a.status, { ...a.headers, 'Content-Length': body.length });
    this.held += body.length;
    return new Promise<void>((resolve) => {
      let offset = 0;
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        res.off('drain', next);
        res.off('close', done);
        socket.off('close', done);
        this.held -= body.length;
        resolve();
      };
      // The client took nothing for too long: drop the connection (and with it the body).
      const stall = () => {
        timer = setTimeout(() => {
          res.destroy();
          socket.destroy();
        }, this.limits.stallMs);
      };
      const next = () => {
        clearTimeout(timer);
        while (offset < body.length) {
          const chunk = body.subarray(offset, Math.min(body.length, offset + CHUNK));
          offset += chunk.length;
          if (!res.write(chunk)) return stall();
        }
        // end() only once the body has left our buffers: server.close() destroys every
        // connection whose response has ended, flushed or not. The last bytes may still wait
        // for the client: the same stall timeout holds until they are taken.
        res.off('drain', next);
        stall();
        res.end(done);
      };
      res.on('drain', next);
      res.once('close', done);
      socket.once('close', done);
      next();
    });
  }
}
