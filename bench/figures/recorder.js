// Figure (recorder): `msnap record` (the built CLI, its own process, default timings) keeping up
// with a busy market channel. A local fake Polymarket in this process (Gamma over HTTP, the CLOB
// market channel and RTDS over WebSockets) lists the current and next market of every coin and type
// and feeds their books at a fixed total rate of events, every message stamped with the wall clock.
// Measured: how long after a tick is due (its time plus the recorder's deliberate hold for late
// frames) the store holds its snapshots (the recorded span passing the tick, polled from another
// connection: span and snapshots are one transaction); the recorder's CPU share of one core and
// its resident memory at the start and the end of the measured window.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { cpuMs, MSNAP_BIN, ROOT, rssMb } from '../child-process.js';
import { describeTarget, judge } from '../targets.js';

const LAG_TARGET_MS = { max: 250 };
const CPU_TARGET = { max: 25 };
/** RSS at the end of the window over RSS at its start: flat is within a tenth. */
const RSS_GROWTH_TARGET = { max: 1.1 };
/** The load: 40 markets (80 tokens) at 100 events/s each. */
const EVENTS_PER_SECOND = 4000;
const TICK_MS = 125;
const FEED_EVERY_MS = 20;

const DEFAULT_SIZES = { quick: { warmupSeconds: 8, seconds: 30 }, full: { warmupSeconds: 15, seconds: 300 } };

/** The current and next (and, for a long run, later) windows of every coin and type, as Gamma lists them. */
function marketSpecs(dist, now, horizonMs) {
  const { COINS, MARKET_TYPES, MARKET_DURATION_MS } = dist.market;
  const specs = [];
  for (const coin of COINS) {
    for (const type of MARKET_TYPES) {
      for (const start of dist.slugs.windowStarts(type, now, now + MARKET_DURATION_MS[type] + horizonMs)) {
        const slug = dist.slugs.gammaSlug(coin, type, start);
        const m = dist.scenarios.scenarioMarket(`bench-rec-${slug}`, start, start + MARKET_DURATION_MS[type]);
        specs.push({ slug, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start, end: start + MARKET_DURATION_MS[type] });
      }
    }
  }
  return specs;
}

/** Feeds every subscribed market's books at `perMarket` events/s: a book on subscribe, then price changes, one array frame per market per step. */
function startFeed(sockets, specs, perMarket) {
  const byToken = new Map();
  for (const s of specs) for (const t of [s.tokenUp, s.tokenDown]) byToken.set(t, s);
  const fed = new Set();
  let seq = 0;
  const level = () => (0.3 + ((seq * 7919) % 40) / 100).toFixed(2);
  const size = () => ((seq * 104729) % 50000 / 100 + 1).toFixed(2);
  const book = (token, market, ts) => ({
    event_type: 'book', asset_id: token, market, timestamp: String(ts), hash: `0x${ts.toString(16)}`,
    bids: Array.from({ length: 10 }, (_, i) => ({ price: (0.49 - i / 100).toFixed(2), size: '100' })),
    asks: Array.from({ length: 10 }, (_, i) => ({ price: (0.51 + i / 100).toFixed(2), size: '100' })),
  });
  sockets.onClobSubscribe((assets) => {
    const now = Date.now();
    const books = assets.filter((a) => byToken.has(a)).map((a) => book(a, byToken.get(a).conditionId, now));
    for (const a of assets) if (byToken.has(a)) fed.add(byToken.get(a));
    if (books.length > 0) sockets.send('clob', JSON.stringify(books));
  });
  let owed = 0;
  let last = Date.now();
  let lastPrice = 0;
  let sent = 0;
  const prices = { btc: 84_000, eth: 3_100, sol: 140 };
  const timer = setInterval(() => {
    const now = Date.now();
    if (Math.floor(now / 1000) !== lastPrice) {
      lastPrice = Math.floor(now / 1000);
      for (const [c, p] of Object.entries(prices)) {
        prices[c] = Math.round((p * (1 + ((seq++ % 7) - 3) / 10_000)) * 100) / 100;
        sockets.send('rtds', JSON.stringify({ topic: 'crypto_prices_chainlink', type: 'update', timestamp: now, payload: { symbol: `${c}/usd`, timestamp: now, value: prices[c] } }));
      }
    }
    owed += ((now - last) / 1000) * perMarket;
    last = now;
    const n = Math.floor(owed);
    owed -= n;
    if (n === 0) return;
    for (const m of fed) {
      if (now >= m.end) continue;
      const messages = [];
      for (let k = 0; k < n; k++) {
        seq++;
        const token = seq % 2 === 0 ? m.tokenUp : m.tokenDown;
        const bid = seq % 3 !== 0;
        messages.push({ event_type: 'price_change', market: m.conditionId, timestamp: String(now), price_changes: [{ asset_id: token, price: bid ? level() : (1 - Number(level()) + 0.02).toFixed(2), size: seq % 5 === 0 ? '0' : size(), side: bid ? 'BUY' : 'SELL', hash: `0x${seq.toString(16)}`, best_bid: '0.49', best_ask: '0.51' }] });
      }
      sent += n;
      sockets.send('clob', JSON.stringify(messages));
    }
  }, FEED_EVERY_MS);
  return { stop: () => clearInterval(timer), markets: () => [...fed].filter((m) => Date.now() < m.end).length, sent: () => sent };
}

/** A percentile of values (nearest rank). */
function percentile(values, q) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** The store's bytes on disk (file and WAL): SQLite's page cache (64 MiB) grows with them, so RSS may too. */
function storeMb(db) {
  const size = (p) => (existsSync(p) ? statSync(p).size : 0);
  return (size(db) + size(`${db}-wal`)) / 1e6;
}

/** Least-squares slope of { at (ms), rss (MB) } samples, in MB per minute (null under 3 samples). */
function slopePerMinute(samples) {
  if (samples.length < 3) return null;
  const n = samples.length;
  const mx = samples.reduce((s, p) => s + p.at, 0) / n;
  const my = samples.reduce((s, p) => s + p.rss, 0) / n;
  const sxy = samples.reduce((s, p) => s + (p.at - mx) * (p.rss - my), 0);
  const sxx = samples.reduce((s, p) => s + (p.at - mx) ** 2, 0);
  return (sxy / sxx) * 60_000;
}

/** Run the recorder figure: `msnap record` on every coin and type against the local fake Polymarket. */
export async function recorderFigure(ctx) {
  const spec = ctx.sizes.recorder ?? (ctx.quick ? DEFAULT_SIZES.quick : DEFAULT_SIZES.full);
  const load = (p) => import(path.join(ROOT, 'dist', p));
  const dist = {
    market: await load('domain/market.js'),
    slugs: await load('realdata/gamma/market-slugs.js'),
    scenarios: await load('realdata/test-support/pmxt-scenarios.js'),
  };
  // The recorder decides a tick this long behind the clock, and writes a batch this often.
  const { lagMs: HOLD_MS, flushMs } = (await load('realdata/live/recording.js')).RECORDING_DEFAULTS;
  const [{ startFakePolymarketSockets }, { startFakeSources }] = await Promise.all([load('realdata/test-support/fake-polymarket-sockets.js'), load('realdata/test-support/fake-sources-server.js')]);
  const runMs = (spec.warmupSeconds + spec.seconds) * 1000;
  const specs = marketSpecs(dist, Date.now(), runMs + 60_000);
  const sockets = await startFakePolymarketSockets();
  const sources = await startFakeSources({ gamma: specs });
  const db = path.join(ctx.tmpDir, 'recorder.db');
  // Every coin and type: the most markets one recorder holds at once (current and next of each).
  const pairs = dist.market.COINS.flatMap((c) => dist.market.MARKET_TYPES.flatMap((t) => [c, t]));
  const perMarket = EVENTS_PER_SECOND / ((pairs.length / 2) * 2);
  const feed = startFeed(sockets, specs, perMarket);
  const child = spawn(process.execPath, [MSNAP_BIN, 'record', ...pairs, '--db', db], {
    cwd: ROOT,
    env: { ...process.env, MSNAP_CLOB_WS_URL: sockets.clobUrl, MSNAP_RTDS_URL: sockets.rtdsUrl, MSNAP_GAMMA_URL: sources.url, NO_COLOR: '1', CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr.setEncoding('utf8').on('data', (s) => (err = (err + s).slice(-20_000)));
  child.stdout.setEncoding('utf8').on('data', (s) => (out += s));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  /** (wall, recorded through) as polled from a reader connection. */
  const polls = [];
  let reader;
  try {
    const started = Date.now();
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    let window;
    /** VmRSS every 10 s of the window: the slope of its second half says whether memory still grows. */
    const rssSamples = [];
    while (Date.now() - started < runMs) {
      await sleep(10);
      if (child.exitCode !== null) throw new Error(`msnap record exited early: ${err.slice(-2000)}`);
      if (!reader && existsSync(db)) {
        try {
          reader = new Database(db, { readonly: true });
          reader.prepare('SELECT 1 FROM realdata_spans LIMIT 1').get();
        } catch {
          reader?.close();
          reader = undefined;
        }
      }
      if (!reader) continue;
      const through = reader.prepare('SELECT max(to_ms) FROM realdata_spans').pluck().get();
      if (through !== null) polls.push({ wall: Date.now(), through });
      if (!window && Date.now() - started >= spec.warmupSeconds * 1000) {
        window = { from: Date.now(), cpu: cpuMs(child.pid), rss: rssMb(child.pid), disk: storeMb(db), markets: feed.markets(), sent: feed.sent() };
      }
      // Halfway through the window: whether memory still grows then, or had settled.
      if (window && (rssSamples.length === 0 || Date.now() - rssSamples.at(-1).at >= 10_000)) rssSamples.push({ at: Date.now(), rss: rssMb(child.pid) });
      if (window && window.midRss === undefined && Date.now() - started >= (spec.warmupSeconds + spec.seconds / 2) * 1000) window.midRss = rssMb(child.pid);
    }
    const end = { at: Date.now(), cpu: cpuMs(child.pid), rss: rssMb(child.pid), disk: storeMb(db), sent: feed.sent() };
    // Each tick due inside the window: the first poll that saw the span pass it.
    const lags = [];
    let k = 0;
    for (let t = Math.ceil((window.from - HOLD_MS) / TICK_MS) * TICK_MS; t + HOLD_MS < end.at - 1000; t += TICK_MS) {
      while (k < polls.length && polls[k].through <= t) k++;
      if (k === polls.length) break;
      lags.push(polls[k].wall - (t + HOLD_MS));
    }
    const p99 = percentile(lags, 0.99);
    const cpuPct = ((end.cpu - window.cpu) / (end.at - window.from)) * 100;
    const growth = end.rss / window.rss;
    const halfway = window.from + (end.at - window.from) / 2;
    const slope = slopePerMinute(rssSamples.filter((s) => s.at >= halfway));
    const rate = (end.sent - window.sent) / ((end.at - window.from) / 1000);
    child.kill('SIGTERM');
    const { code } = await exited;
    if (code !== 0) throw new Error(`msnap record exited ${code}: ${err.slice(-2000)}`);
    const snapshots = new Database(db, { readonly: true });
    const stored = snapshots.prepare('SELECT count(*) AS markets, sum(snapshot_count) AS rows FROM markets').get();
    snapshots.close();
    return {
      title: 'Recorder: a busy market channel into SQLite',
      method:
        `\`msnap record\` on all ${pairs.length / 2} coin and type pairs (the current and next market of each: ${window.markets} markets, ${window.markets * 2} tokens) against a local fake Polymarket in the bench process ` +
        `feeding ${EVENTS_PER_SECOND.toLocaleString('en-US')} price changes a second in all (${perMarket.toFixed(0)} per market, one array frame per market every ${FEED_EVERY_MS} ms, stamped with the wall clock) and a Chainlink price per coin a second; ` +
        `measured over ${spec.seconds} s after ${spec.warmupSeconds} s of warm-up. Lag: for each 125 ms tick, from when it is due (its time plus the recorder's ${HOLD_MS} ms hold for late frames) to the first poll (every 10 ms, another connection) that sees the recorded span pass it; ` +
        'CPU is utime+stime of the record process over the window (/proc/PID/stat) against the wall time; RSS is its VmRSS at the start, halfway through and at the end of the window.',
      rows: [
        { name: 'Recorder: p99 lag, tick due to snapshot stored', value: p99, unit: ' ms', target: describeTarget(LAG_TARGET_MS, ' ms'), verdict: judge({ value: p99, ...LAG_TARGET_MS }) },
        { name: 'Recorder: median lag', value: percentile(lags, 0.5), unit: ' ms' },
        { name: 'Recorder: CPU (share of one core)', value: cpuPct, unit: '%', target: describeTarget(CPU_TARGET, '%'), verdict: judge({ value: cpuPct, ...CPU_TARGET }) },
        { name: 'Recorder: RSS at the start of the window', value: window.rss, unit: ' MB' },
        { name: 'Recorder: RSS at the end / at the start', value: growth, unit: 'x', target: describeTarget(RSS_GROWTH_TARGET, 'x'), verdict: judge({ value: growth, ...RSS_GROWTH_TARGET }) },
        { name: 'Recorder: RSS at the end / halfway', value: end.rss / window.midRss, unit: 'x' },
        { name: 'Recorder: RSS slope over the second half (least squares, samples every 10 s)', value: slope ?? 'n/a', unit: ' MB/min' },
        { name: 'Recorder: RSS growth / store growth on disk over the window', value: `${(end.rss - window.rss).toFixed(1)} / ${(end.disk - window.disk).toFixed(1)} MB` },
        { name: 'Recorder: events fed per second (measured)', value: rate, unit: '/s' },
      ],
      commands: [`msnap record ${pairs.join(' ')} --db DB   # MSNAP_CLOB_WS_URL, MSNAP_RTDS_URL, MSNAP_GAMMA_URL: the local fakes`],
      notes: [
        `The issue asks for 40 markets (80 tokens) at 100 events/s each; one recorder holds the current and next market of each of the ${pairs.length / 2} pairs (${window.markets} markets), so the same ${EVENTS_PER_SECOND.toLocaleString('en-US')} events/s are spread over them.`,
        `The recorder writes a batch every ${flushMs} ms (its flush interval): a tick waits up to that long for the next batch, which the lag includes.`,
        `Stored at the end: ${stored.markets} markets, ${Number(stored.rows ?? 0).toLocaleString('en-US')} snapshots; ${lags.length.toLocaleString('en-US')} ticks measured. Summary: ${out.trim()}`,
      ],
    };
  } finally {
    reader?.close();
    feed.stop();
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await sockets.close();
    await sources.close();
  }
}
