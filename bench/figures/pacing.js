// Figure 1: an export that needs hundreds of requests, paced by the CLI under a key's limits.
// Its wall time is divided by the shortest time in which that many requests could be admitted
// at all (the server's own limiter replayed at perfect timing). Requests and 429s are counted on
// the wire by a pass-through proxy. A 429 is a rare event and the machine is shared, so the
// export runs several times (a fresh key each, so no run inherits another's limiter state) and
// the figure is the worst run.
import os from 'node:os';
import path from 'node:path';
import { runMsnap } from '../child-process.js';
import { rmSync } from 'node:fs';
import { createKey, fullMarkets, seedDatabase, startMsnapServe } from '../msnap-commands.js';
import { pacingMinimumMs } from '../pacing-minimum.js';
import { startRequestLogProxy } from '../request-log-proxy.js';
import { describeTarget, judge } from '../targets.js';

const TARGET = { max: 1.05 };

/** Run the pacing export `ctx.sizes.pacingRuns` times and return the figure (worst run). */
export async function pacingFigure(ctx) {
  const { plan, rpm, burst, markets, minRequests, db: ownStore } = ctx.sizes.pacing;
  const runs = ctx.sizes.pacingRuns ?? 1;
  // Quick mode seeds a store of its own (only the 5m markets the export reads), so the main one
  // stays small for the figures that copy it.
  const db = ownStore ? path.join(ctx.tmpDir, 'pacing.db') : ctx.db;
  if (ownStore) await seedDatabase(db, ownStore, { tmpDir: ctx.tmpDir });
  // One request per 5m market (2,400 snapshots fit one page), plus the market list and /limits.
  const series = { coin: 'BTC', type: '5m' };
  const results = [];
  try {
    const available = fullMarkets(db, { ...series, limit: 100_000 }).length;
    if (available < markets) throw new Error(`the seeded database holds ${available} complete BTC 5m markets; the pacing export needs ${markets}`);
    for (let i = 0; i < runs; i++) results.push(await pacingRun({ ...ctx, db }, i, series));
  } finally {
    if (ownStore) rmSync(db, { force: true });
  }
  const worst = (pick) => Math.max(...results.map(pick));
  const ratio = worst((r) => r.ratio);
  const spanRatio = worst((r) => r.spanRatio);
  const tooMany = worst((r) => r.tooMany);
  const requests = Math.min(...results.map((r) => r.requests));
  const planText = plan === 'builder' ? `builder key (${rpm}/min sliding, ${burst}/s burst)` : `${plan} key with --rpm ${rpm} --burst ${burst}`;
  return {
    title: 'Pacing efficiency',
    method:
      `\`msnap snapshots ${series.coin} ${series.type} --last ${markets} --csv -o FILE\` with a ${planText}, through a loopback ` +
      `proxy that records every request and its status, ${runs} run(s) on fresh keys, the worst of them reported. The theoretical ` +
      "minimum is the time at which the last of that many requests is admitted when each is sent the very millisecond the server's " +
      'own `KeyLimiter` would admit it (bench/pacing-minimum.js); the wall time is the CLI process from spawn to exit.',
    rows: [
      { name: `Pacing: wall / theoretical minimum (worst of ${runs})`, value: ratio, target: describeTarget(TARGET), verdict: judge({ value: ratio, ...TARGET }) },
      { name: `Pacing: first request to last response / theoretical minimum (worst of ${runs})`, value: spanRatio },
      { name: `Pacing: 429 responses received (most in one of ${runs} runs)`, value: tooMany, target: '= 0', verdict: judge({ value: tooMany, exactly: 0 }) },
      { name: 'Pacing: requests in the export', value: requests, target: `>= ${minRequests}`, verdict: judge({ value: requests, min: minRequests }) },
    ],
    commands: [`msnap snapshots ${series.coin} ${series.type} --last ${markets} --csv -o pacing.csv --quiet   # ${plan} key, ${runs} run(s)`],
    notes: results.map(
      (r, i) =>
        `Run ${i + 1} (load average ${r.load} at its start): ${r.requests} requests, ${r.tooMany} answered 429 (${r.otherErrors} other errors); ` +
        `theoretical minimum ${(r.minimumMs / 1000).toFixed(2)} s, wall ${(r.wallMs / 1000).toFixed(2)} s (ratio ${r.ratio.toFixed(3)}); ` +
        `first request to last response ${(r.spanMs / 1000).toFixed(2)} s (ratio ${r.spanRatio.toFixed(3)}).` +
        (r.refusals.length ? ` 429s: ${r.refusals.join('; ')}.` : ''),
    ),
    data: { runs: results, ratio, spanRatio, tooMany },
  };
}

async function pacingRun(ctx, index, series) {
  const { plan, rpm, burst, markets } = ctx.sizes.pacing;
  const limits = { perMinute: rpm, burst };
  const key = await createKey(ctx.db, {
    account: `bench-pacing-${process.pid}-${Date.now()}-${index}`,
    plan,
    ...(plan === 'enterprise' ? { rpm, burst } : {}),
  });
  const out = path.join(ctx.tmpDir, 'pacing.csv');
  const args = ['snapshots', series.coin, series.type, '--last', String(markets), '--csv', '-o', out, '--quiet'];
  const load = os.loadavg()[0].toFixed(2);
  const server = await startMsnapServe(ctx.db);
  const proxy = await startRequestLogProxy(server.url);
  let run;
  try {
    run = await runMsnap(args, { env: ctx.cliEnv(proxy.url, key), tmpDir: ctx.tmpDir });
  } finally {
    await proxy.close();
    await server.stop();
  }
  const requests = proxy.log.length;
  const tooMany = proxy.log.filter((e) => e.status === 429).length;
  const otherErrors = proxy.log.filter((e) => e.status !== 429 && e.status >= 400).length;
  // Which limit refused each 429, and when: request number and seconds after the first request.
  const refusals = proxy.log.flatMap((e, i) =>
    e.status === 429 ? [`request ${i + 1} of ${proxy.log.length} (${((e.startMs - proxy.log[0].startMs) / 1000).toFixed(2)} s in, ${e.path.split('?')[0]}): refused by the ${e.refusedBy} limit`] : [],
  );
  const minimumMs = pacingMinimumMs(requests, limits);
  const first = proxy.log[0]?.startMs ?? 0;
  const last = Math.max(...proxy.log.map((e) => e.endMs));
  return { requests, tooMany, refusals, otherErrors, minimumMs, wallMs: run.wallMs, ratio: run.wallMs / minimumMs, spanMs: last - first, spanRatio: (last - first) / minimumMs, load };
}
