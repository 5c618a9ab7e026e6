#!/usr/bin/env node
// The server baseline: node:http + better-sqlite3 over the same database file, answering the
// two endpoints the load test hits with the same queries and byte-for-byte the same JSON as
// `msnap serve`, and nothing else: no auth, rate limits, validation, headers or routing table.
// What msnap serve loses against this is the cost of being the real service.
//
//   node bench/baseline-server.js --db FILE [--port 0]
// First stdout line: `baseline listening on http://127.0.0.1:PORT`.
import http from 'node:http';
import Database from 'better-sqlite3';

const PRICE_SCALE = 10_000;
const SNAPSHOT_INTERVAL_MS = 125;
const SNAPSHOT_ID_STRIDE = 100_000_000;

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const db = new Database(arg('--db'), { readonly: true, fileMustExist: true });
db.pragma('query_only = ON');

const DETAILS = ['event_id', 'condition_id', 'clob_token_up', 'clob_token_down', 'final_volume', 'final_liquidity', 'resolved_at', 'created_at', 'updated_at'];
const ENDED_ONLY = new Set(['final_volume', 'final_liquidity', 'resolved_at']);
const MARKET_COLUMNS = `id, market_id, coin, market_type, start_time, end_time, price_start, price_end, winner, snapshot_count, dense, ${DETAILS.join(', ')}`;
const marketById = db.prepare(`SELECT ${MARKET_COLUMNS} FROM markets WHERE market_id = ?`);
const marketPage = db.prepare(`SELECT ${MARKET_COLUMNS} FROM markets ORDER BY start_time DESC, market_id DESC LIMIT ? OFFSET ?`);
const marketCount = db.prepare('SELECT count(*) FROM markets').pluck();
// The store's page query. Dense markets (t = 0, 125, 250, ...) seek to the page by arithmetic;
// others step with OFFSET over the whole market.
const pageRange = db.prepare('SELECT t, price, price_up, price_down FROM snapshots WHERE market = ? AND t >= ? AND t < ? ORDER BY t LIMIT ? OFFSET ?').raw();

function marketJson(m, now) {
  const active = now >= m.start_time && now < m.end_time;
  return JSON.stringify({
    market_id: m.market_id,
    slug: m.market_id,
    coin: m.coin,
    market_type: m.market_type,
    status: active ? 'active' : 'resolved',
    start_time: m.start_time,
    end_time: m.end_time,
    price_start: m.price_start,
    price_end: active ? null : m.price_end,
    winner: active ? null : m.winner,
    snapshot_count: m.snapshot_count,
    [`${m.coin.toLowerCase()}_price_start`]: m.price_start,
    [`${m.coin.toLowerCase()}_price_end`]: active ? null : m.price_end,
    ...Object.fromEntries(DETAILS.map((d) => [d, active && ENDED_ONLY.has(d) ? null : m[d]])),
  });
}

function snapshotsJson(rows, m) {
  if (rows.length === 0) return '[]';
  const idBase = m.id * SNAPSHOT_ID_STRIDE;
  const middle = `,"market_id":${JSON.stringify(m.market_id)},"time":`;
  let out = '[';
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    out += (i === 0 ? '{"id":' : ',{"id":') + (idBase + r[0]) + middle + (m.start_time + r[0]) +
      ',"price":' + r[1] / PRICE_SCALE + ',"price_up":' + r[2] / PRICE_SCALE + ',"price_down":' + r[3] / PRICE_SCALE + '}';
  }
  return out + ']';
}

function intParam(params, name, fallback, max) {
  const v = params.get(name);
  if (v === null) return fallback;
  const n = Number(v);
  return Math.min(max, Math.max(0, Math.trunc(n) || 0));
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const SNAPSHOTS_PATH = /^\/(?:api\/)?v1\/markets\/([^/]+)\/snapshots$/;
const MARKETS_PATH = /^\/(?:api\/)?v1\/markets$/;

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const now = Date.now();
  let m;
  if ((m = SNAPSHOTS_PATH.exec(url.pathname))) {
    const market = marketById.get(decodeURIComponent(m[1]));
    if (!market) return send(res, 404, '{"error":"Not Found","message":"No such market."}');
    const limit = intParam(url.searchParams, 'limit', 1000, 10_000);
    const offset = intParam(url.searchParams, 'offset', 0, Number.MAX_SAFE_INTEGER);
    const duration = market.end_time - market.start_time;
    let rows;
    if (market.dense) {
      const first = offset;
      const last = Math.min(market.snapshot_count, first + limit);
      rows = last <= first ? [] : pageRange.all(market.id, first * SNAPSHOT_INTERVAL_MS, last * SNAPSHOT_INTERVAL_MS, limit, 0);
    } else {
      rows = pageRange.all(market.id, 0, duration, limit, offset);
    }
    return send(res, 200, `{"market":${marketJson(market, now)},"snapshots":${snapshotsJson(rows, market)},"total":${market.snapshot_count},"limit":${limit},"offset":${offset}}`);
  }
  if (MARKETS_PATH.test(url.pathname)) {
    const limit = intParam(url.searchParams, 'limit', 100, 1000);
    const offset = intParam(url.searchParams, 'offset', 0, Number.MAX_SAFE_INTEGER);
    const markets = marketPage.all(limit, offset).map((row) => marketJson(row, now));
    return send(res, 200, `{"markets":[${markets.join(',')}],"total":${marketCount.get()},"limit":${limit},"offset":${offset}}`);
  }
  send(res, 404, '{"error":"Not Found","message":"No such path."}');
});
server.keepAliveTimeout = 30_000;
server.listen(Number(arg('--port', '0')), '127.0.0.1', () => {
  process.stdout.write(`baseline listening on http://127.0.0.1:${server.address().port}\n`);
});
const stop = () => server.close(() => { db.close(); process.exit(0); });
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
