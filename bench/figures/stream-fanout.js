// Figure 17: stream fan-out. 50 WebSocket clients on GET /v1/stream, each subscribed to every
// market, against `msnap serve --live` (15 active markets at 8 snapshots a second) and against
// `msnap serve --replay` at 60x. Frames delivered per second (all clients), p99 frame lag (wall ms
// from a snapshot's data time to its receipt: against the wall clock live, against the replay
// clock divided by its speed in replay), the server's CPU over the window (/proc/PID/stat) and its
// peak RSS (VmHWM). The clients run in child processes so their parsing does not slow the count.
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from '../child-process.js';
import { createKey, seedDatabase, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const CLIENTS = 50;
const WORKERS = 2;
const SPEED = 60;
/** Live: two 125 ms ticks. Replay at 60x: 360,000 frames/s that the 2-core box also has to parse in the client processes. */
const TARGET_LAG_MS = { live: { max: 250 }, replay: { max: 500 } };
const TARGET_RSS_MB = { max: 300 };
const SEED = { days: 1, full: { '5m': 12, '15m': 4, '1hr': 2, '4hr': 1, '24hr': 1 } };
const CLIENT_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'stream-clients.js');

/** Seed one database; measure a live server over one copy and a 60x replay over another. */
export async function streamFanoutFigure(ctx) {
  const windowMs = ctx.quick ? 8_000 : 30_000;
  const base = path.join(ctx.tmpDir, 'stream-base.db');
  const seeded = await seedDatabase(base, SEED, { tmpDir: ctx.tmpDir });
  const key = await createKey(base, { account: `bench-stream-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const results = {};
  for (const mode of ['live', 'replay']) {
    const file = path.join(ctx.tmpDir, `stream-${mode}.db`);
    copyFileSync(base, file);
    // The replay starts 30 minutes back, so it has history to play for the whole window at 60x.
    const flags = mode === 'live' ? ['--live'] : ['--replay', String(Date.now() - 30 * 60_000), '--speed', String(SPEED)];
    const server = await startMsnapServe(file, flags);
    try {
      results[mode] = await measureFanout(server, key, windowMs);
    } finally {
      await server.stop();
    }
  }
  const rows = [];
  for (const [mode, r] of Object.entries(results)) {
    const label = mode === 'live' ? 'live' : `replay ${SPEED}x`;
    rows.push(
      { name: `Stream ${label}: frames/s delivered (${CLIENTS} clients)`, value: Math.round(r.framesPerSec), unit: '' },
      { name: `Stream ${label}: frames/s expected (15 markets x 8/s x ${mode === 'live' ? 1 : SPEED} x ${CLIENTS})`, value: r.expectedPerSec, unit: '' },
      { name: `Stream ${label}: p50 frame lag`, value: r.p50, unit: ' ms' },
      { name: `Stream ${label}: p99 frame lag`, value: r.p99, unit: ' ms', target: describeTarget(TARGET_LAG_MS[mode], ' ms'), verdict: judge({ value: r.p99, ...TARGET_LAG_MS[mode] }) },
      { name: `Stream ${label}: server CPU (one core = 100%)`, value: Math.round(r.cpuPct), unit: '%' },
      { name: `Stream ${label}: server peak RSS`, value: Math.round(r.peakRssMb), unit: ' MB', target: describeTarget(TARGET_RSS_MB, ' MB'), verdict: judge({ value: r.peakRssMb, ...TARGET_RSS_MB }) },
      { name: `Stream ${label}: streams closed by the server`, value: r.closedByServer, unit: '', target: '= 0', verdict: judge({ value: r.closedByServer, exactly: 0 }) },
    );
  }
  return {
    title: 'Stream fan-out',
    method:
      `${CLIENTS} WebSocket clients (the ws package, in ${WORKERS} child processes) open GET /v1/stream with one enterprise key and ` +
      `subscribe to every market; frames are counted for ${windowMs / 1000} s once all are subscribed. Lag is the wall time from a ` +
      "snapshot's data time to its receipt: live, against the wall clock; in replay, against the replay clock (read from /v1/clock " +
      `just before the window) divided by the speed. Server CPU is utime+stime of the msnap serve process over the window ` +
      `(/proc/PID/stat); peak RSS its VmHWM. Database: ${seeded.snapshots.toLocaleString('en-US')} snapshots.`,
    rows,
    commands: [
      seeded.command.replace(base, 'stream.db'),
      'msnap serve --db stream.db --live --port 0',
      `msnap serve --db stream.db --replay 30m --speed ${SPEED} --port 0`,
      `node bench/stream-clients.js URL KEY ${CLIENTS / WORKERS} WINDOW_MS CLOCK_JSON   # x${WORKERS}`,
    ],
    notes: [
      'Targets (msnap\'s choice): live p99 lag <= 250 ms, two stream ticks of 125 ms (a snapshot waits at most one tick to be ' +
        'written and read, then its fan-out); replay p99 lag <= 500 ms: at 60x the 50 clients take 360,000 frames a second, and the ' +
        'client processes parsing them share the 2 cores with the server, so their own scheduling shows in the tail (the p50 stays ' +
        'near half a tick); peak RSS <= 300 MB; no stream closed as too slow. Frames/s delivered has no target: it shows whether ' +
        'every client got every frame (compare with the expected row).',
    ],
  };
}

async function measureFanout(server, key, windowMs) {
  const clock = await (await fetch(`${server.url}/v1/clock`, { headers: { 'x-api-key': key } })).json();
  const reading = { now: clock.mode === 'replay' ? clock.now : Date.now(), at: Date.now(), speed: clock.mode === 'replay' ? clock.speed : 1 };
  const workers = Array.from({ length: WORKERS }, () => startClients(server.url, key, CLIENTS / WORKERS, windowMs, reading));
  await Promise.all(workers.map((w) => w.ready));
  const cpuBefore = cpuMs(server.pid);
  const started = performance.now();
  for (const w of workers) w.go();
  const outs = await Promise.all(workers.map((w) => w.done));
  const elapsed = performance.now() - started;
  const cpuPct = ((cpuMs(server.pid) - cpuBefore) / elapsed) * 100;
  const lags = new Array(outs[0].lags.length).fill(0);
  let frames = 0;
  let closedByServer = 0;
  for (const o of outs) {
    frames += o.frames;
    o.lags.forEach((n, i) => (lags[i] += n));
    for (const [code, n] of Object.entries(o.closes)) if (Number(code) >= 4000) closedByServer += n;
  }
  return {
    framesPerSec: frames / (windowMs / 1000),
    expectedPerSec: 15 * 8 * reading.speed * CLIENTS,
    p50: percentile(lags, 0.5),
    p99: percentile(lags, 0.99),
    cpuPct,
    peakRssMb: server.peakRssKb() / 1024,
    closedByServer,
  };
}

function startClients(url, key, count, windowMs, clock) {
  const child = spawn(process.execPath, [CLIENT_SCRIPT, url, key, String(count), String(windowMs), JSON.stringify(clock)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  let readyResolve;
  let readyReject;
  const ready = new Promise((resolve, reject) => ((readyResolve = resolve), (readyReject = reject)));
  const done = new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (s) => {
      out += s;
      if (out.startsWith('ready\n')) readyResolve();
    });
    child.on('exit', (code) => {
      readyReject(new Error(`stream clients exited ${code} before all subscribed`));
      const last = out.trim().split('\n').pop();
      if (code !== 0 || !last?.startsWith('{')) reject(new Error(`stream clients exited ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(last));
    });
  });
  return { ready, done, go: () => child.stdin.write('go\n') };
}

function percentile(histogram, q) {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i];
    if (seen >= q * total) return i;
  }
  return histogram.length - 1;
}
