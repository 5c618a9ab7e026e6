// Figure 3 (and the server half of figure 6): autocannon, in this process, against msnap serve
// and against the raw baseline server, each in its own process on the same database file:
// snapshot pages (limit=1000 at random offsets of complete markets) and the markets list.
import path from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { ROOT, startServer } from '../child-process.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const TARGET = { min: 0.85 };
const SERIALISED_AIM = 1_000_000;
const SERVER_MEMORY_TARGET_MB = { max: 300 };
const PAGE = 1000;
const BASELINE = path.join(ROOT, 'bench', 'baseline-server.js');

/** Load both servers on both endpoints; returns figure 3 and the server's peak RSS. */
export async function serverThroughputFigure(ctx) {
  const key = await createKey(ctx.db, { account: `bench-load-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const markets = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 50 });
  if (markets.length === 0) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
  const msnap = await startMsnapServe(ctx.db);
  const baseline = await startServer(BASELINE, ['--db', ctx.db, '--port', '0']);
  const headers = { 'x-api-key': key };
  const snapshotPath = () => {
    const m = markets[Math.floor(Math.random() * markets.length)];
    const offset = Math.floor(Math.random() * (m.snapshot_count - PAGE));
    return `/api/v1/markets/${m.market_id}/snapshots?limit=${PAGE}&offset=${offset}`;
  };
  const marketCount = await totalMarkets(msnap.url, headers);
  const marketsPath = () => `/api/v1/markets?limit=100&offset=${Math.floor(Math.random() * Math.max(1, marketCount - 100))}`;
  const results = {};
  let sameJson;
  let serverPeakRssMb = NaN;
  let baselinePeakRssMb = NaN;
  try {
    sameJson = await compareBodies(msnap.url, baseline.url, headers, [snapshotPath(), marketsPath(), `/api/v1/markets/${markets[0].market_id}/snapshots?limit=${PAGE}&offset=0`]);
    for (const [name, makePath] of [['snapshots', snapshotPath], ['markets', marketsPath]]) {
      // A short unrecorded run per server first: JIT, page cache and connection set-up.
      for (const url of [baseline.url, msnap.url]) await load(url, headers, makePath, { ...ctx.sizes, loadSeconds: ctx.sizes.warmupSeconds });
      // Short slices, baseline and msnap taking turns, so that the shared machine's noise falls on
      // both sides alike; each side's rate is its requests over its seconds, all slices together.
      for (let slice = 0; slice < ctx.sizes.loadSlices; slice++) {
        for (const [server, url] of [['baseline', baseline.url], ['msnap', msnap.url]]) {
          const r = await load(url, headers, makePath, { ...ctx.sizes, loadSeconds: ctx.sizes.loadSeconds / ctx.sizes.loadSlices });
          const slot = (results[`${name}/${server}`] ??= { requests: 0, seconds: 0, reqPerSec: 0, runs: [] });
          slot.runs.push(r);
          slot.requests += r.requests;
          slot.seconds += r.seconds;
          slot.reqPerSec = slot.requests / slot.seconds;
        }
      }
    }
  } finally {
    serverPeakRssMb = (msnap.peakRssKb() ?? NaN) / 1024;
    baselinePeakRssMb = (baseline.peakRssKb() ?? NaN) / 1024;
    await Promise.all([msnap.stop(), baseline.stop()]);
  }
  const snapRatio = results['snapshots/msnap'].reqPerSec / results['snapshots/baseline'].reqPerSec;
  const listRatio = results['markets/msnap'].reqPerSec / results['markets/baseline'].reqPerSec;
  const serialised = results['snapshots/msnap'].reqPerSec * PAGE;
  const errorNotes = Object.entries(results).flatMap(([k, v]) =>
    v.runs.filter((r) => r.non2xx + r.errors > 0).map((r) => `${k}: ${r.non2xx} non-2xx and ${r.errors} errors in one run`));
  return {
    figure: {
      title: 'Server throughput',
      method:
        `autocannon (programmatic, in the bench process) with ${ctx.sizes.connections} connections, ${ctx.sizes.loadSeconds} s per server and endpoint ` +
        `in ${ctx.sizes.loadSlices} slices alternating baseline and msnap (rate = all requests / all seconds), against \`msnap serve\` (enterprise key, limits out of the way) ` +
        'and bench/baseline-server.js (node:http + better-sqlite3 on the same file, the same SQL and byte-identical JSON, no auth, limits or validation), ' +
        `each in its own process. Snapshots: \`/api/v1/markets/ID/snapshots?limit=${PAGE}&offset=RANDOM\` over ${markets.length} complete ${ctx.sizes.exportType} markets; ` +
        `markets: \`/api/v1/markets?limit=100&offset=RANDOM\`. Each pair starts with an unrecorded ${ctx.sizes.warmupSeconds} s warm-up per server. ` +
        'The baseline serialises raw rows by string concatenation with plain number-to-string conversion. The 2 cores are shared by autocannon and the server under test.',
      rows: [
        { name: 'Server: snapshots req/s, msnap', value: results['snapshots/msnap'].reqPerSec, unit: ' req/s' },
        { name: 'Server: snapshots req/s, baseline', value: results['snapshots/baseline'].reqPerSec, unit: ' req/s' },
        { name: 'Server: snapshots msnap / baseline', value: snapRatio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: snapRatio, ...TARGET }) },
        { name: 'Server: snapshots serialised per second (msnap)', value: serialised, unit: '/s', target: `aim > ${SERIALISED_AIM.toLocaleString('en-US')}/s`, verdict: null },
        { name: 'Server: snapshots serialised per second (baseline)', value: results['snapshots/baseline'].reqPerSec * PAGE, unit: '/s' },
        { name: 'Server: markets list req/s, msnap', value: results['markets/msnap'].reqPerSec, unit: ' req/s' },
        { name: 'Server: markets list req/s, baseline', value: results['markets/baseline'].reqPerSec, unit: ' req/s' },
        { name: 'Server: markets list msnap / baseline', value: listRatio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: listRatio, ...TARGET }) },
        { name: 'Server: responses identical to baseline', value: sameJson.same ? 'yes' : 'NO', target: 'yes', verdict: { pass: sameJson.same, miss: sameJson.same ? 0 : Infinity } },
      ],
      commands: [
        `node bench/baseline-server.js --db FILE --port 0`,
        `msnap serve --db FILE --host 127.0.0.1 --port 0`,
        `autocannon -c ${ctx.sizes.connections} -d ${ctx.sizes.loadSeconds} -H x-api-key=KEY 'URL/api/v1/markets/ID/snapshots?limit=${PAGE}&offset=RANDOM'   # programmatic, setupRequest randomises`,
      ],
      notes: [
        ...Object.entries(results).map(([k, v]) =>
          `${k}: ${Math.round(v.reqPerSec)} req/s over ${v.seconds.toFixed(1)} s; slices ${v.runs.map((r) => `${Math.round(r.reqPerSec)} req/s (p50 ${r.p50} ms, p99 ${r.p99} ms, ${(r.bytesPerSec / 2 ** 20).toFixed(0)} MiB/s)`).join('; ')}`),
        ...errorNotes,
        ...(sameJson.same ? [] : sameJson.diffs),
        `Baseline server peak RSS ${baselinePeakRssMb.toFixed(0)} MB.`,
      ],
    },
    serverPeakRssMb,
  };
}

async function load(url, headers, makePath, sizes) {
  const result = await autocannon({
    url,
    connections: sizes.connections,
    duration: sizes.loadSeconds,
    headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: makePath() }) }],
  });
  const seconds = result.duration || sizes.loadSeconds;
  return {
    requests: result.requests.total,
    seconds,
    reqPerSec: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerSec: result.throughput.total / seconds,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function totalMarkets(url, headers) {
  const res = await request(`${url}/api/v1/markets?limit=1`, { headers });
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`GET /api/v1/markets: ${res.statusCode} ${JSON.stringify(body)}`);
  return body.total;
}

// The baseline must answer with the very same JSON (statuses computed at the same instant aside).
async function compareBodies(msnapUrl, baselineUrl, headers, paths) {
  const diffs = [];
  for (const p of paths) {
    const [a, b] = await Promise.all([msnapUrl, baselineUrl].map(async (u) => (await request(u + p, { headers })).body.text()));
    const na = JSON.stringify(JSON.parse(a));
    const nb = JSON.stringify(JSON.parse(b));
    if (na !== nb) diffs.push(`Body differs for ${p}: msnap ${na.slice(0, 300)}... vs baseline ${nb.slice(0, 300)}...`);
  }
  return { same: diffs.length === 0, diffs };
}

export { SERVER_MEMORY_TARGET_MB };
