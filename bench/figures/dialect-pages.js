// Figure 9: the same snapshot pages through each dialect of one `msnap serve`, side by side in one
// run: v1 (`price`, ms times) is the baseline, v4 (`btc_price`, ms) must stay within 10% of it and
// v2 (ISO times, the costliest printing) within 35%. Slices take turns so the shared machine's
// noise falls on every dialect alike.
import autocannon from 'autocannon';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const PAGE = 1000; // the largest page all three dialects serve (v2 and v4 cap snapshots at 1,000)
const TARGETS = { v4: { min: 0.9 }, v2: { min: 0.65 } };

const PATHS = {
  v1: (m, offset) => `/api/v1/markets/${m.market_id}/snapshots?limit=${PAGE}&offset=${offset}`,
  v2: (m, offset) => `/v2/markets/${m.market_id}/snapshots?coin=${m.coin.toLowerCase()}&limit=${PAGE}&offset=${offset}`,
  v4: (m, offset) => `/v4/markets/${m.market_id}/snapshots?coin=${m.coin.toLowerCase()}&limit=${PAGE}&offset=${offset}&include_total=false`,
};

/** Load v1, v2 and v4 snapshot pages in alternating slices; returns the figure. */
export async function dialectPagesFigure(ctx) {
  const key = await createKey(ctx.db, { account: `bench-dialects-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const markets = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 50 });
  if (markets.length === 0) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
  const server = await startMsnapServe(ctx.db);
  const headers = { 'x-api-key': key };
  const pathOf = (dialect) => () => {
    const m = markets[Math.floor(Math.random() * markets.length)];
    return PATHS[dialect](m, Math.floor(Math.random() * (m.snapshot_count - PAGE)));
  };
  // Twice figure 3's slices, each half as long: the three dialects take turns more often, so a
  // burst of load from elsewhere on the machine falls on all of them.
  const { loadSeconds, loadSlices } = ctx.sizes.dialectLoad ?? ctx.sizes;
  const slices = loadSlices * 2;
  const sliceSeconds = loadSeconds / slices;
  const results = {};
  try {
    for (const dialect of Object.keys(PATHS)) await load(server.url, headers, pathOf(dialect), ctx.sizes.warmupSeconds, ctx.sizes.connections);
    for (let slice = 0; slice < slices; slice++) {
      for (const dialect of Object.keys(PATHS)) {
        const r = await load(server.url, headers, pathOf(dialect), sliceSeconds, ctx.sizes.connections);
        const slot = (results[dialect] ??= { requests: 0, seconds: 0, bad: 0, slices: [] });
        slot.requests += r.requests;
        slot.seconds += r.seconds;
        slot.bad += r.bad;
        slot.slices.push(r.requests / r.seconds);
      }
    }
  } finally {
    await server.stop();
  }
  const rate = (d) => results[d].requests / results[d].seconds;
  // The judged ratio is the median over rounds of (dialect's slice / v1's slice of the same
  // round): slices of one round run back to back, so a burst of load from elsewhere on the shared
  // machine moves a round's ratio far less than it moves the totals.
  const ratio = (d) => median(results[d].slices.map((r, i) => r / results.v1.slices[i]));
  const bad = Object.entries(results).filter(([, v]) => v.bad > 0).map(([k, v]) => `${k}: ${v.bad} non-2xx responses or errors`);
  return {
    title: 'Dialects: snapshot pages',
    method:
      `autocannon with ${ctx.sizes.connections} connections against one \`msnap serve\` (enterprise key), ${PAGE}-snapshot pages at random offsets of ` +
      `${markets.length} complete ${ctx.sizes.exportType} markets through each dialect: ${slices} slices of ` +
      `${sliceSeconds.toFixed(1)} s per dialect, taking turns v1, v2, v4 (pages/s = all requests / all seconds; the ratios are the median over rounds of each round's slice ratio), after an unrecorded ` +
      `${ctx.sizes.warmupSeconds} s warm-up each. v1 prints \`price\` and ms times, v2 \`btc_price\` and ISO times, v4 \`btc_price\` and ms times with its paging envelope.`,
    rows: [
      { name: 'Dialects: v1 snapshot pages/s', value: rate('v1'), unit: ' pages/s' },
      { name: 'Dialects: v2 snapshot pages/s', value: rate('v2'), unit: ' pages/s' },
      { name: 'Dialects: v4 snapshot pages/s', value: rate('v4'), unit: ' pages/s' },
      { name: 'Dialects: v4 / v1 (median of rounds)', value: ratio('v4'), unit: 'x', target: describeTarget(TARGETS.v4, 'x'), verdict: judge({ value: ratio('v4'), ...TARGETS.v4 }) },
      { name: 'Dialects: v2 / v1 (median of rounds)', value: ratio('v2'), unit: 'x', target: describeTarget(TARGETS.v2, 'x'), verdict: judge({ value: ratio('v2'), ...TARGETS.v2 }) },
    ],
    commands: Object.values(PATHS).map((p) => `autocannon -c ${ctx.sizes.connections} -H x-api-key=KEY 'URL${p({ market_id: 'ID', coin: 'btc' }, 'RANDOM')}'`),
    notes: [...Object.entries(results).map(([k, v]) => `${k}: slices ${v.slices.map((x) => Math.round(x)).join(', ')} pages/s`), ...bad],
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function load(url, headers, makePath, seconds, connections) {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: makePath() }) }],
  });
  const elapsed = result.duration || seconds;
  return { requests: result.requests.total, seconds: elapsed, bad: result.non2xx + result.errors + result.timeouts };
}
