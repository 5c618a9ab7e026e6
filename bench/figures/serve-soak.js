// Figure 14: `msnap serve` (replaying, so it streams) under mixed honest and hostile traffic for
// a while (60 s full, 12 s quick). Honest clients page snapshots and list markets with a key; at
// the same time one address floods failed keys, one floods refused sign-ins with distinct long
// names, slow readers ask for the largest pages over raw sockets and never read, garbage arrives
// on raw sockets, streams subscribe to every market with orderbooks and never read, and refused
// WebSocket handshakes (an HTTP/2 upgrade, no Sec-WebSocket-Key) arrive with valid keys.
// Reported: the server's peak RSS, its RSS once the attackers left (against its RSS before they
// came), the p99 latency of honest requests (against the same traffic alone just before, so the
// shared machine's load cancels out), and their 5xx count.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { readVmHwmKb, rssMb } from '../child-process.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const RSS_TARGET_MB = { max: 450 };
/** Honest p99 with the hostile traffic over honest p99 alone (the same run, just before): the machine's own load cancels out. */
const P99_RATIO_TARGET = { max: 3 };
const FIVE_XX_TARGET = { exactly: 0 };
/** RSS once the attackers left (and honest traffic went on a while) over RSS before they came. */
const AFTER_TARGET_MB = { max: 50 };
/** Accounts of the never-reading streams (a pro key holds 10), and of the refused handshakes. */
const STREAM_ACCOUNTS = 5;
const STREAMS_PER_KEY = 10;

/** Run the soak; returns the figure. */
export async function serveSoakFigure(ctx) {
  const seconds = ctx.quick ? 12 : 60;
  const key = await createKey(ctx.db, { account: `bench-soak-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const markets = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 20 });
  if (markets.length === 0) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
  const streamKeys = [];
  for (let i = 0; i < STREAM_ACCOUNTS; i++) streamKeys.push(await createKey(ctx.db, { account: `bench-soak-streams-${process.pid}-${i}`, plan: 'pro' }));
  const handshakeKey = await createKey(ctx.db, { account: `bench-soak-handshakes-${process.pid}`, plan: 'pro' });
  // A replay from just after the newest complete market ended: the honest pages are all visible, and the stream has history to send.
  const serve = await startMsnapServe(ctx.db, ['--replay', String(markets[0].end_time), '--speed', '10']);
  const port = Number(new URL(serve.url).port);
  const pools = [];
  const pool = (connections) => {
    const p = new Pool(serve.url, { connections });
    pools.push(p);
    return p;
  };
  const honestPool = pool(4);
  const quiet = { latencies: [], status: new Map() };
  const soak = { latencies: [], status: new Map() };
  const after = { latencies: [], status: new Map() };
  const hostile = { failedKeys: 0, signIns: 0, slowReaders: 0, garbage: 0, streams: 0, streamCloses: new Map(), handshakes: new Map() };
  let until = 0;
  const running = () => performance.now() < until;
  const sockets = [];
  const streams = [];
  let peakRssMb = 0;
  let startRssMb = 0;
  let afterRssMb = 0;
  let warmPages = 0;
  let warmSeconds = 0;
  try {
    const honest = async (into) => {
      for (let i = 0; running(); i++) {
        const m = markets[i % markets.length];
        const path = i % 3 === 2 ? '/api/v1/markets?limit=100' : `/api/v1/markets/${m.market_id}/snapshots?limit=1000&offset=${(i * 997) % Math.max(1, m.snapshot_count - 1000)}`;
        const t0 = performance.now();
        const r = await honestPool.request({ method: 'GET', path, headers: { 'x-api-key': key } });
        await r.body.dump();
        into.latencies.push(performance.now() - t0);
        into.status.set(r.statusCode, (into.status.get(r.statusCode) ?? 0) + 1);
      }
    };
    const failedKeys = async () => {
      const p = pool(2);
      while (running()) {
        const r = await p.request({ method: 'GET', path: '/api/v1/markets', headers: { 'x-api-key': 'msk_wrong_wrong_wrong' } });
        await r.body.dump();
        hostile.failedKeys++;
      }
    };
    const signIns = async () => {
      const p = pool(2);
      const page = await p.request({ method: 'GET', path: '/signin' });
      const cookie = String(page.headers['set-cookie']).split(';')[0];
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.body.text())[1];
      for (let i = 0; running(); i++) {
        const body = new URLSearchParams({ csrf, account: `${'n'.repeat(i % 2 ? 3000 : 40)}${i}`, password: 'wrong password' }).toString();
        const r = await p.request({ method: 'POST', path: '/signin', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
        await r.body.dump();
        hostile.signIns++;
      }
    };
    const slowReaders = async () => {
      const m = markets[0];
      const req = `GET /api/v1/markets/${m.market_id}/snapshots?limit=10000&include_orderbook=true HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\n\r\n`;
      while (running()) {
        const s = connect(port, '127.0.0.1', () => s.write(req + req));
        s.on('error', () => {});
        sockets.push(s);
        hostile.slowReaders++;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const garbage = async () => {
      while (running()) {
        const s = connect(port, '127.0.0.1', () => s.end('\x16\x03\x01\x00\xa5 not http\r\n\r\n'));
        s.on('error', () => {});
        s.resume();
        hostile.garbage++;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // Streams that subscribe to everything with orderbooks and never read; each one closed is opened again.
    const hoarders = async (key) => {
      const open = new Set();
      while (running()) {
        if (open.size < STREAMS_PER_KEY) {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream?token=${encodeURIComponent(key)}`);
          streams.push(ws);
          open.add(ws);
          hostile.streams++;
          ws.on('error', () => {});
          ws.on('open', () => {
            ws.send('{"type":"subscribe","orderbook":true}');
            ws.pause();
          });
          ws.on('close', (code) => {
            open.delete(ws);
            hostile.streamCloses.set(code, (hostile.streamCloses.get(code) ?? 0) + 1);
          });
          ws.on('unexpected-response', (req, res) => {
            open.delete(ws);
            hostile.streamCloses.set(`HTTP ${res.statusCode}`, (hostile.streamCloses.get(`HTTP ${res.statusCode}`) ?? 0) + 1);
            req.destroy();
          });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    // Handshakes ws would refuse, with a valid key: as `curl --http2` sends one, and one without Sec-WebSocket-Key.
    const handshakes = async () => {
      const asks = [
        `GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${handshakeKey}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n`,
        `GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${handshakeKey}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ];
      for (let i = 0; running(); i++) {
        const s = connect(port, '127.0.0.1', () => s.write(asks[i % 2]));
        s.on('error', () => {});
        s.once('data', (d) => {
          const status = String(d).split(' ', 2)[1];
          hostile.handshakes.set(status, (hostile.handshakes.get(status) ?? 0) + 1);
          s.destroy();
        });
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const sampler = async () => {
      while (running()) {
        peakRssMb = Math.max(peakRssMb, (readVmHwmKb(serve.pid) ?? 0) / 1024);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    // Every page the figure will ask for read once first, so SQLite's page cache (up to 64 MiB, and
    // bounded) is as warm before the attack as after it: the RSS compared is then memory held, not
    // cache filled (a quick run's 4 s of honest traffic alone had read too little of it).
    const warm = [];
    for (const m of markets) {
      warm.push(`/api/v1/markets/${m.market_id}/snapshots?limit=10000&include_orderbook=true`);
      for (let offset = 0; offset < m.snapshot_count; offset += 10_000) warm.push(`/api/v1/markets/${m.market_id}/snapshots?limit=10000&offset=${offset}`);
    }
    const warmStarted = performance.now();
    await Promise.all([0, 1, 2, 3].map(async (k) => {
      for (let i = k; i < warm.length; i += 4) await (await honestPool.request({ method: 'GET', path: warm[i], headers: { 'x-api-key': key } })).body.dump();
    }));
    warmSeconds = (performance.now() - warmStarted) / 1000;
    warmPages = warm.length;
    // First the honest traffic alone (a third of the time), then the same with the hostile traffic beside it.
    until = performance.now() + (seconds * 1000) / 3;
    await Promise.all([honest(quiet), honest(quiet), honest(quiet), honest(quiet)]);
    startRssMb = rssMb(serve.pid);
    until = performance.now() + seconds * 1000;
    await Promise.all([honest(soak), honest(soak), honest(soak), honest(soak), failedKeys(), signIns(), slowReaders(), garbage(), sampler(), handshakes(), ...streamKeys.map(hoarders)]);
    peakRssMb = Math.max(peakRssMb, (serve.peakRssKb() ?? 0) / 1024);
    // The attackers leave; honest traffic goes on (a third of the time) and the server should give their memory back.
    for (const s of sockets) s.destroy();
    for (const ws of streams) ws.terminate();
    // At least 8 s (a quick run's third is 4 s, too short for V8 to hand back its young pages); the
    // lowest RSS seen is what the server kept (garbage not yet collected only raises a sample).
    until = performance.now() + Math.max(8, seconds / 3) * 1000;
    afterRssMb = Infinity;
    const lowest = async () => {
      while (running()) {
        afterRssMb = Math.min(afterRssMb, rssMb(serve.pid));
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    await Promise.all([honest(after), honest(after), honest(after), honest(after), lowest()]);
    afterRssMb = Math.min(afterRssMb, rssMb(serve.pid));
  } finally {
    for (const s of sockets) s.destroy();
    for (const ws of streams) ws.terminate();
    await Promise.all(pools.map((p) => p.destroy()));
    await serve.stop();
  }
  const p99Quiet = percentile(quiet.latencies, 0.99);
  const p99Soak = percentile(soak.latencies, 0.99);
  const ratio = p99Soak / p99Quiet;
  const fiveXx = [...soak.status, ...after.status].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const describe = (name, run) =>
    `${name}: ${run.latencies.length} requests, p50 ${percentile(run.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(run.latencies, 0.99).toFixed(1)} ms, max ${Math.max(...run.latencies).toFixed(1)} ms; statuses ${[...run.status].map(([st, c]) => `${st} x ${c}`).join(', ')}.`;
  return {
    title: 'Serve soak: honest and hostile traffic together',
    method:
      `One \`msnap serve\` over the bench database: honest traffic alone for ${Math.round(seconds / 3)} s, then honest and hostile traffic together for ${seconds} s. Honest: 4 loops on one enterprise key, one request at a time each, ` +
      'snapshot pages (`limit=1000`, complete markets) and market lists (2 to 1). Hostile, all at once: a loop of requests with a wrong key, ' +
      'a loop of dashboard sign-ins with distinct (every other one 3,000-character) names, a raw connection every 100 ms asking twice for ' +
      '`limit=10000&include_orderbook=true` and never reading, a raw connection every 50 ms sending garbage, ' +
      `${STREAM_ACCOUNTS} pro accounts keeping ${STREAMS_PER_KEY} streams each open (subscribed to every market with orderbooks, never reading; one opened every 100 ms per account while fewer are open), ` +
      'and a refused WebSocket handshake every 100 ms with a valid key (an HTTP/2 `h2c` upgrade, a handshake without `Sec-WebSocket-Key`). ' +
      `The server replays from the newest complete market's end at 10x, so it streams. Then the attackers leave and the honest traffic goes on for ${Math.round(seconds / 3)} s. ` +
      'Peak RSS is VmHWM of the serve process; RSS after is the lowest VmRSS sampled (every 250 ms) while honest traffic went on alone after the attack, against VmRSS when the attack began; latency is per honest request, from send to the last body byte.',
    rows: [
      { name: 'Soak: server peak RSS', value: peakRssMb, unit: ' MB', target: describeTarget(RSS_TARGET_MB, ' MB'), verdict: judge({ value: peakRssMb, ...RSS_TARGET_MB }) },
      { name: 'Soak: server RSS after the attackers left, over before', value: afterRssMb - startRssMb, unit: ' MB', target: describeTarget(AFTER_TARGET_MB, ' MB'), verdict: judge({ value: afterRssMb - startRssMb, ...AFTER_TARGET_MB }) },
      { name: 'Soak: honest p99 latency under attack', value: p99Soak, unit: ' ms' },
      { name: 'Soak: honest p99 latency alone', value: p99Quiet, unit: ' ms' },
      { name: 'Soak: honest p99, under attack / alone', value: ratio, unit: 'x', target: describeTarget(P99_RATIO_TARGET, 'x'), verdict: judge({ value: ratio, ...P99_RATIO_TARGET }) },
      { name: 'Soak: honest 5xx answers', value: fiveXx, unit: '', target: describeTarget(FIVE_XX_TARGET), verdict: judge({ value: fiveXx, ...FIVE_XX_TARGET }) },
    ],
    commands: [`msnap serve --db FILE --host 127.0.0.1 --port 0 --replay T --speed 10   # bench/figures/serve-soak.js drives the traffic`],
    notes: [
      describe('Honest alone', quiet),
      describe('Honest under attack', soak),
      describe('Honest after the attack', after),
      `Hostile: ${hostile.failedKeys} failed-key requests, ${hostile.signIns} sign-ins, ${hostile.slowReaders} never-reading connections, ${hostile.garbage} garbage connections, ` +
        `${hostile.streams} never-reading streams (closed: ${[...hostile.streamCloses].map(([c, n]) => `${c} x ${n}`).join(', ') || 'none'}), ` +
        `refused handshakes: ${[...hostile.handshakes].map(([c, n]) => `${c} x ${n}`).join(', ') || 'none'}.`,
      `Warm-up: ${warmPages} pages of up to 10,000 snapshots (every page of the honest markets, and the first with books) read in ${warmSeconds.toFixed(1)} s before the honest traffic alone.`,
      `Server RSS: ${startRssMb.toFixed(0)} MB when the attack began, ${afterRssMb.toFixed(0)} MB after the attackers left (the lowest sample).`,
    ],
  };
}

function percentile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
