// Figure 1: an export that needs hundreds of requests, paced by the CLI under a key's limits.
// Its wall time is divided by the shortest time in which that many requests could be admitted
// at all (the server's own limiter replayed at perfect timing). Requests and 429s are counted on
// the wire by a pass-through proxy.
import path from 'node:path';
import { runMsnap } from '../child-process.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { pacingMinimumMs } from '../pacing-minimum.js';
import { startRequestLogProxy } from '../request-log-proxy.js';
import { describeTarget, judge } from '../targets.js';

const TARGET = { max: 1.05 };

/** Run the pacing export and return the figure. */
export async function pacingFigure(ctx) {
  const { plan, rpm, burst, markets, minRequests } = ctx.sizes.pacing;
  const limits = { perMinute: rpm, burst };
  const key = await createKey(ctx.db, {
    account: `bench-pacing-${process.pid}-${Date.now()}`,
    plan,
    ...(plan === 'enterprise' ? { rpm, burst } : {}),
  });
  // One request per 5m market (2,400 snapshots fit one page), plus the market list and /limits.
  const series = { coin: 'BTC', type: '5m' };
  const available = fullMarkets(ctx.db, { ...series, limit: 100_000 }).length;
  if (available < markets) throw new Error(`the seeded database holds ${available} complete BTC 5m markets; the pacing export needs ${markets}`);
  const out = path.join(ctx.tmpDir, 'pacing.csv');
  const args = ['snapshots', series.coin, series.type, '--last', String(markets), '--csv', '-o', out, '--quiet'];
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
  const minimumMs = pacingMinimumMs(requests, limits);
  const ratio = run.wallMs / minimumMs;
  const first = proxy.log[0]?.startMs ?? 0;
  const last = Math.max(...proxy.log.map((e) => e.endMs));
  const spanRatio = (last - first) / minimumMs;
  const planText = plan === 'builder' ? `builder key (${rpm}/min sliding, ${burst}/s burst)` : `${plan} key with --rpm ${rpm} --burst ${burst}`;
  return {
    title: 'Pacing efficiency',
    method:
      `\`msnap snapshots ${series.coin} ${series.type} --last ${markets} --csv -o FILE\` with a ${planText}, through a loopback ` +
      'proxy that records every request and its status. The theoretical minimum is the time at which the last of that many ' +
      "requests is admitted when each is sent the very millisecond the server's own `KeyLimiter` would admit it " +
      '(bench/pacing-minimum.js); the wall time is the CLI process from spawn to exit.',
    rows: [
      { name: 'Pacing: wall / theoretical minimum', value: ratio, target: describeTarget(TARGET), verdict: judge({ value: ratio, ...TARGET }) },
      { name: 'Pacing: first request to last response / theoretical minimum', value: spanRatio },
      { name: 'Pacing: 429 responses received', value: tooMany, target: '= 0', verdict: judge({ value: tooMany, exactly: 0 }) },
      { name: 'Pacing: requests in the export', value: requests, target: `>= ${minRequests}`, verdict: judge({ value: requests, min: minRequests }) },
    ],
    commands: [`msnap snapshots ${series.coin} ${series.type} --last ${markets} --csv -o pacing.csv --quiet   # ${plan} key`],
    notes: [
      `${requests} requests (${otherErrors} other errors); theoretical minimum ${(minimumMs / 1000).toFixed(2)} s, ` +
        `wall ${(run.wallMs / 1000).toFixed(2)} s; first request to last response ${((last - first) / 1000).toFixed(2)} s ` +
        `(ratio ${spanRatio.toFixed(3)}), so ${((run.wallMs - (last - first)) / 1000).toFixed(2)} s went to process start and exit.`,
    ],
    data: { requests, tooMany, minimumMs, wallMs: run.wallMs, ratio, spanRatio },
  };
}

