// A real WebSocket client (the `ws` package) for GET /v1/stream that records every frame, the
// close code, or the HTTP refusal, and waits on them with deadlines instead of sleeps.
import WebSocket from 'ws';
import { until } from './until.js';

/** One frame as the client parsed it. */
export type Frame = { type: string } & Record<string, unknown>;

/** A recorded stream. */
export interface Recorded {
  ws: WebSocket;
  frames: Frame[];
  /** Set once the server refused the upgrade. */
  refused?: { status: number; body: string };
  /** Set once the socket closed. */
  closed?: { code: number; reason: string };
  /** Resolves when open; rejects with the HTTP status of a refusal. */
  opened: Promise<void>;
  /** Waits for a frame of `type` (matching `pred`) at or after index `from`. */
  next(type: string, pred?: (f: Frame) => boolean, timeoutMs?: number, from?: number): Promise<Frame>;
  /** Waits for the close. */
  waitClosed(timeoutMs?: number): Promise<{ code: number; reason: string }>;
}

/** Use to open a stream at `httpUrl` (http://host:port) with `?token=` or headers. */
export function openStream(httpUrl: string, opts: { token?: string; headers?: Record<string, string>; path?: string } = {}): Recorded {
  const query = opts.token === undefined ? '' : `?token=${encodeURIComponent(opts.token)}`;
  const ws = new WebSocket(httpUrl.replace(/^http/, 'ws') + (opts.path ?? '/v1/stream') + query, { headers: opts.headers });
  const rec: Recorded = {
    ws,
    frames: [],
    opened: new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('unexpected-response', (req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString('utf8')));
        res.on('end', () => {
          // With this listener ws leaves the connection to us.
          req.destroy();
          rec.refused = { status: res.statusCode ?? 0, body };
          reject(new Error(`HTTP ${res.statusCode}: ${body}`));
        });
      });
      ws.once('error', reject);
    }),
    async next(type, pred = () => true, timeoutMs = 20_000, from = 0) {
      let found: Frame | undefined;
      // Scans each frame once: a fast stream holds tens of thousands.
      let i = from;
      const scan = () => {
        for (; i < rec.frames.length && !found; i++) if (rec.frames[i]!.type === type && pred(rec.frames[i]!)) found = rec.frames[i];
        return found !== undefined || rec.closed !== undefined;
      };
      await until(scan, `a ${type} frame`, timeoutMs);
      if (!found) throw new Error(`stream closed (${rec.closed!.code} ${rec.closed!.reason}) before a ${type} frame`);
      return found;
    },
    async waitClosed(timeoutMs = 20_000) {
      await until(() => rec.closed !== undefined, 'the stream to close', timeoutMs);
      return rec.closed!;
    },
  };
  rec.opened.catch(() => undefined);
  ws.on('error', () => undefined);
  ws.on('message', (data) => rec.frames.push(JSON.parse(data.toString()) as Frame));
  ws.on('close', (code, reason) => (rec.closed = { code, reason: reason.toString() }));
  return rec;
}
