// The client side of `GET /v1/stream` (BOTS.md "Live stream"): a WebSocket (the `ws` package),
// subscribed before it is handed on, its frames decoded into events a watch takes in order. It
// answers the server's pings (an idle client is closed after 60 s) and, when the watch falls
// behind, stops reading the socket rather than holding frames without bound: the server then sees
// a slow client and closes with 4002, and the watch polls from where it stood.
import WebSocket from 'ws';
import { AuthError } from '../../errors.js';
import { normalizeMarket, normalizeSnapshot } from '../normalize.js';
import type { SnapshotStream, StreamEvent, StreamOpening, StreamSubscription } from './stream-events.js';

/** Events held before the socket is paused; reading resumes below half of it. */
const MAX_HELD = 20_000;
/** How long the upgrade and the subscription may take. */
const OPEN_TIMEOUT_MS = 15_000;

/** Where and as whom to connect. */
export interface StreamTarget {
  baseUrl: string;
  apiKey?: string;
  authScheme?: 'x-api-key' | 'bearer';
  now: () => number;
}

/** The WebSocket URL of a service's stream. */
export function streamUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '').replace(/^http/i, 'ws')}/v1/stream`;
}

/** The headers of the upgrade's answer (its rate-limit headers teach the pacer). */
type Headers = Record<string, string | string[] | undefined>;

/**
 * Use to open and subscribe: a stream, `absent` (404), or `refused` (4008, a failure), with the
 * upgrade answer's headers when one came.
 */
export function openSnapshotStream(target: StreamTarget, sub: StreamSubscription): Promise<{ value: StreamOpening; status?: number; headers?: Headers }> {
  const headers: Record<string, string> = {};
  if (target.apiKey) {
    if (target.authScheme === 'bearer') headers.Authorization = `Bearer ${target.apiKey}`;
    else headers['X-API-Key'] = target.apiKey;
  }
  const ws = new WebSocket(streamUrl(target.baseUrl), { headers, handshakeTimeout: OPEN_TIMEOUT_MS });
  const held: StreamEvent[] = [];
  let waiter: ((e: StreamEvent) => void) | undefined;
  let last: StreamEvent | undefined;
  let paused = false;
  const push = (e: StreamEvent): void => {
    if (last) return;
    if (e.type === 'end' || e.type === 'closed') last = e;
    if (waiter) {
      const w = waiter;
      waiter = undefined;
      w(e);
      return;
    }
    held.push(e);
    if (held.length >= MAX_HELD && !paused) {
      paused = true;
      ws.pause();
    }
  };
  const stream: SnapshotStream = {
    next() {
      const e = held.shift();
      if (paused && held.length < MAX_HELD / 2) {
        paused = false;
        ws.resume();
      }
      if (e) return Promise.resolve(e);
      if (last) return Promise.resolve(last);
      return new Promise((resolve) => (waiter = resolve));
    },
    get buffered() {
      return held.length;
    },
    close() {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000, 'done');
      push({ type: 'closed', code: 1000, reason: 'closed by the client' });
    },
  };

  return new Promise((resolve, reject) => {
    let settled = false;
    let headers: Headers | undefined;
    let status: number | undefined;
    const settle = (outcome: StreamOpening | Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof Error) reject(outcome);
      else resolve({ value: outcome, ...(status !== undefined ? { status } : {}), ...(headers ? { headers } : {}) });
      if (!('stream' in outcome)) ws.terminate();
    };
    const timer = setTimeout(() => settle({ refused: `no answer to the subscription in ${OPEN_TIMEOUT_MS / 1000} s` }), OPEN_TIMEOUT_MS);
    ws.on('upgrade', (res) => {
      headers = res.headers;
      status = res.statusCode;
    });
    ws.on('unexpected-response', (_req, res) => {
      headers = res.headers;
      status = res.statusCode;
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString('utf8').slice(0, 2000)));
      res.on('end', () => {
        if (status === 401) settle(new AuthError(`${streamUrl(target.baseUrl)} answered 401: ${errorMessage(body)}`));
        else if (status === 404) settle({ absent: true });
        else settle({ refused: `${streamUrl(target.baseUrl)} answered ${status}: ${errorMessage(body)}` });
      });
    });
    ws.on('error', (err) => settle({ refused: err.message }));
    ws.on('open', () => ws.send(JSON.stringify({ type: 'subscribe', coins: sub.coins, market_types: sub.marketTypes, orderbook: sub.orderbook })));
    ws.on('close', (code, reason) => {
      const why = reason.toString();
      if (!settled) settle({ refused: code === 4008 ? `the key's streams are all in use (4008)` : `closed ${code} ${why}`.trim() });
      push({ type: 'closed', code, reason: code === 4002 ? why || 'too slow' : why });
    });
    ws.on('message', (data) => {
      let frame: Record<string, unknown>;
      try {
        frame = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        return;
      }
      try {
        take(frame);
      } catch (err) {
        // A frame that is not what the protocol says: the watch polls instead of guessing.
        push({ type: 'closed', code: 1002, reason: `a malformed frame (${err instanceof Error ? err.message : String(err)})` });
        ws.terminate();
      }
    });
    const take = (frame: Record<string, unknown>): void => {
      switch (frame.type) {
        case 'subscribed':
          settle({ stream });
          return;
        case 'ping':
          ws.send('{"type":"pong"}');
          return;
        case 'snapshot': {
          const raw = frame.snapshot as Record<string, unknown> | undefined;
          push({ type: 'snapshot', snapshot: normalizeSnapshot(raw, String(raw?.market_id ?? '')) });
          return;
        }
        case 'market_open':
        case 'market_resolved':
          push({ type: frame.type, market: normalizeMarket(frame.market, target.now()) });
          return;
        case 'end':
          push({ type: 'end' });
          return;
        case 'error':
          if (!settled) settle({ refused: `${String(frame.code)}: ${String(frame.message)}` });
      }
    };
  });
}

// The service's error body, in a line.
function errorMessage(body: string): string {
  try {
    const o = JSON.parse(body) as { message?: unknown; error?: unknown };
    return String(o.message ?? o.error ?? body).slice(0, 200);
  } catch {
    return body.slice(0, 200) || 'no body';
  }
}
