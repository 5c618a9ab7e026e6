// A real local HTTP server on port 0 standing in for every public source of a real-data import:
// Gamma's `/events?slug=`, Binance's `/api/v3/klines`, and plain files (PMXT hour files, kline
// zips) with Content-Length, HEAD and byte ranges. It records each request and can be told to
// fail (a status, a delay, a dropped connection, a body cut short) for fault tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gammaEventsBody, type GammaMarketSpec } from './gamma-fixture.js';
import { KLINE_MS, klinesJson, type Kline, type KlineInterval } from './kline-fixture.js';

/** What the fake serves. */
export interface FakeSourcesOptions {
  /** Markets Gamma knows; `/events?slug=` answers the events whose slug matches. */
  gamma?: readonly GammaMarketSpec[];
  /** Klines by symbol and interval, in REST form, ascending. */
  klines?: Readonly<Record<string, Partial<Record<KlineInterval, readonly Kline[]>>>>;
  /** Files by URL path (`/pmxt/polymarket_orderbook_2026-04-13T12.parquet`). */
  files?: Readonly<Record<string, Uint8Array>>;
}

/** How a matched request fails. */
export type Fault =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'drop' }
  /** Send the headers (full Content-Length) and half the body, then drop the connection. */
  | { kind: 'cut' };

/** One request as the fake saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  range?: string;
}

/** A running fake: its base URL, what it was asked, and its fault switch. */
export interface FakeSources {
  url: string;
  requests: RecordedRequest[];
  /** Make the next `times` requests whose path starts with `pathPrefix` (or matches it) fail. */
  fail(pathPrefix: string | RegExp, fault: Fault, times?: number): void;
  /** Replaces the markets Gamma knows (a market that resolves later, a next market listed late). */
  setGamma(markets: readonly GammaMarketSpec[]): void;
  clearFaults(): void;
  close(): Promise<void>;
}

/** Binance's default and maximum `limit`. */
const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 1000;

function sendJson(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function binanceError(res: ServerResponse, code: number, msg: string): void {
  sendJson(res, 400, JSON.stringify({ code, msg }));
}

function klinesAnswer(res: ServerResponse, q: Record<string, string>, klines: FakeSourcesOptions['klines']): void {
  const bySymbol = q.symbol === undefined ? undefined : klines?.[q.symbol];
  if (!bySymbol) return binanceError(res, -1121, 'Invalid symbol.');
  if (!q.interval || !(q.interval in KLINE_MS)) return binanceError(res, -1120, 'Invalid interval.');
  const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) return binanceError(res, -1130, "Data sent for parameter 'limit' is not valid.");
  const all = bySymbol[q.interval as KlineInterval] ?? [];
  const start = q.startTime === undefined ? undefined : Number(q.startTime);
  const end = q.endTime === undefined ? undefined : Number(q.endTime);
  const inRange = all.filter((k) => (start === undefined || k[0] >= start) && (end === undefined || k[0] <= end));
  // With only an end (or nothing), Binance answers the latest klines; with a start, the earliest.
  const page = start === undefined ? inRange.slice(-limit) : inRange.slice(0, limit);
  sendJson(res, 200, klinesJson(page));
}

function fileAnswer(req: IncomingMessage, res: ServerResponse, bytes: Uint8Array, cut: boolean): void {
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  let from = 0;
  let to = bytes.length - 1;
  let status = 200;
  if (range && (range[1] !== '' || range[2] !== '')) {
    if (range[1] === '') from = Math.max(0, bytes.length - Number(range[2]));
    else {
      from = Number(range[1]);
      if (range[2] !== '') to = Math.min(to, Number(range[2]));
    }
    if (from > to || from >= bytes.length) {
      res.writeHead(416, { 'Content-Range': `bytes */${bytes.length}` });
      res.end();
      return;
    }
    status = 206;
  }
  const body = bytes.subarray(from, to + 1);
  res.writeHead(status, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': body.length,
    'Accept-Ranges': 'bytes',
    ...(status === 206 ? { 'Content-Range': `bytes ${from}-${to}/${bytes.length}` } : {}),
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  if (cut) {
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    return;
  }
  res.end(body);
}

/** Use to start the fake on 127.0.0.1, port 0; close() it after the test. */
export async function startFakeSources(options: FakeSourcesOptions = {}): Promise<FakeSources> {
  const requests: RecordedRequest[] = [];
  let gamma = options.gamma ?? [];
  const faults: { match: string | RegExp; fault: Fault; left: number }[] = [];

  const faultFor = (path: string): Fault | undefined => {
    const f = faults.find((x) => x.left > 0 && (typeof x.match === 'string' ? path.startsWith(x.match) : x.match.test(path)));
    if (!f) return undefined;
    f.left -= 1;
    return f.fault;
  };

  const answer = (req: IncomingMessage, res: ServerResponse, path: string, query: Record<string, string>, cut: boolean): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' });
      res.end();
      return;
    }
    if (path === '/events') {
      const slug = query.slug;
      return sendJson(res, 200, gammaEventsBody(gamma.filter((m) => m.slug === slug)));
    }
    // Gamma's /markets answers [] for up/down slugs (REALDATA.md): only the events route finds them.
    if (path === '/markets') return sendJson(res, 200, '[]');
    if (path === '/api/v3/klines') return klinesAnswer(res, query, options.klines);
    const file = options.files?.[path];
    if (file) return fileAnswer(req, res, file, cut);
    sendJson(res, 404, JSON.stringify({ error: 'Not Found', path }));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query, ...(req.headers.range ? { range: req.headers.range } : {}) });
    const fault = faultFor(url.pathname);
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'Content-Type': 'text/plain', ...fault.headers });
      res.end(fault.body ?? 'fake failure');
      return;
    }
    if (fault?.kind === 'slow') {
      const timer = setTimeout(() => answer(req, res, url.pathname, query, false), fault.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    answer(req, res, url.pathname, query, fault?.kind === 'cut');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail(match, fault, times = Number.POSITIVE_INFINITY) {
      faults.push({ match, fault, left: times });
    },
    setGamma(markets) {
      gamma = markets;
    },
    clearFaults() {
      faults.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}
