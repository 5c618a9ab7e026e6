// Figure 4: at-timestamp latency must not grow with the store. Two databases, one small and one
// large, each behind its own msnap serve; sequential lookups over one keep-alive connection at
// random times inside random complete markets; p50 and p99 of each.
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const TARGET = { max: 1.5 };
const WARMUP = 200;

/** Measure both sizes; `dbs` is `{ small: { file, snapshots, seed }, large: {...} }`. */
export async function pointLookupFigure(ctx, dbs) {
  const targets = {};
  let measured;
  try {
    for (const size of ['small', 'large']) {
      const { file } = dbs[size];
      const key = await createKey(file, { account: `bench-lookup-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
      const markets = fullMarkets(file, { limit: 100_000 });
      if (markets.length === 0) throw new Error(`${file} holds no complete market`);
      targets[size] = { key, markets, server: await startMsnapServe(file) };
    }
    // Both servers run at once and take turns, request by request, so that whatever else the
    // shared machine does lands on both samples alike.
    measured = await lookups(targets, ctx.sizes.lookups.count);
  } finally {
    await Promise.all(Object.values(targets).map((t) => t.server.stop()));
  }
  const ratio = measured.large.p99 / measured.small.p99;
  const fmt = (n) => n.toLocaleString('en-US');
  const s = dbs.small.snapshots;
  const l = dbs.large.snapshots;
  return {
    title: 'Point lookups stay flat',
    method:
      `${ctx.sizes.lookups.count} sequential \`/v1/snapshots/at-timestamp?market=ID&ts=T\` requests per database over one keep-alive ` +
      `connection each (after ${WARMUP} warm-up requests), T uniform inside a random complete market, against two msnap serve ` +
      `processes running side by side, one on a database of ${fmt(s)} snapshots and one on ${fmt(l)}, taking turns request by ` +
      'request so machine noise lands on both alike. Latency is measured in the bench process (request sent to body read).',
    rows: [
      { name: `Lookups: p50 at ${fmt(s)} snapshots`, value: measured.small.p50, unit: ' ms' },
      { name: `Lookups: p99 at ${fmt(s)} snapshots`, value: measured.small.p99, unit: ' ms' },
      { name: `Lookups: p50 at ${fmt(l)} snapshots`, value: measured.large.p50, unit: ' ms' },
      { name: `Lookups: p99 at ${fmt(l)} snapshots`, value: measured.large.p99, unit: ' ms' },
      { name: 'Lookups: p99 large / p99 small', value: ratio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: ratio, ...TARGET }) },
    ],
    commands: [dbs.small.seed.command.replace(dbs.small.file, 'small.db'), dbs.large.seed.command.replace(dbs.large.file, 'large.db'), 'msnap serve --db small.db|large.db --port 0', "GET '/v1/snapshots/at-timestamp?market=ID&ts=T'  x" + ctx.sizes.lookups.count],
    notes: [
      `small: ${measured.small.ok} answered 200, ${measured.small.notFound} 404, mean ${measured.small.mean.toFixed(3)} ms; ` +
        `large: ${measured.large.ok} answered 200, ${measured.large.notFound} 404, mean ${measured.large.mean.toFixed(3)} ms.`,
      `Markets sampled: ${measured.small.markets} (small), ${measured.large.markets} (large).`,
    ],
  };
}

async function lookups(targets, count) {
  const sides = Object.entries(targets).map(([size, t]) => ({
    size,
    ...t,
    client: new Client(t.server.url, { pipelining: 1 }),
    times: [],
    ok: 0,
    notFound: 0,
  }));
  try {
    for (let i = 0; i < WARMUP + count; i++) {
      for (const side of sides) {
        const m = side.markets[Math.floor(Math.random() * side.markets.length)];
        const ts = m.start_time + Math.floor(Math.random() * (m.snapshot_count * 125));
        const path = `/v1/snapshots/at-timestamp?market=${m.market_id}&ts=${ts}`;
        const started = performance.now();
        const res = await side.client.request({ method: 'GET', path, headers: { 'x-api-key': side.key } });
        await res.body.text();
        const elapsed = performance.now() - started;
        if (res.statusCode !== 200 && res.statusCode !== 404) throw new Error(`GET ${path}: ${res.statusCode}`);
        if (i < WARMUP) continue;
        side.times.push(elapsed);
        if (res.statusCode === 200) side.ok++;
        else side.notFound++;
      }
    }
  } finally {
    await Promise.all(sides.map((s) => s.client.close()));
  }
  const out = {};
  for (const s of sides) {
    const times = s.times.sort((a, b) => a - b);
    const pct = (p) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))];
    out[s.size] = { p50: pct(50), p99: pct(99), mean: times.reduce((a, b) => a + b, 0) / times.length, ok: s.ok, notFound: s.notFound, markets: s.markets.length };
  }
  return out;
}
