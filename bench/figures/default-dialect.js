// Figure 16: the default `--api auto` against `msnap serve` takes the path with the fewest
// requests for the same bytes. One complete market exported to CSV on a builder key with
// `--api auto` and `--api v1` (serve's largest pages) in alternating rounds (at least 5), a fresh account per
// run so no run inherits another's rate-limit window; auto must reach 95% of v1's speed, with
// the same bytes and the same number of snapshot requests. v4's planned request count (its
// 1,000-row pages) is shown from `--dry-run`, which fetches nothing.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { runMsnap } from '../child-process.js';
import { csvDigest } from '../csv-digest.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const SPEED_TARGET = { min: 0.95 };
const DIALECTS = ['auto', 'v1'];

/** Export one market with each `--api` in turn; returns the figure. */
export async function defaultDialectFigure(ctx) {
  const type = ctx.sizes.defaultDialectType ?? ctx.sizes.exportType;
  const [market] = fullMarkets(ctx.db, { type, limit: 1 });
  if (!market) throw new Error(`the seeded database holds no complete ${type} market`);
  const server = await startMsnapServe(ctx.db);
  // Runs of well under a second on a shared machine: several rounds, the best of each counted.
  const rounds = Math.max(5, ctx.sizes.exportRounds);
  // The full run's 70 pages on a builder key (12/s burst) are pace-bound; quick mode's 12 pages get
  // a key with a burst that makes them pace-bound too (see options.js).
  const keySpec = ctx.sizes.defaultDialectKey ?? { plan: 'builder' };
  const keyText = keySpec.plan === 'builder' ? 'a builder key (250/min, 12/s)' : `an ${keySpec.plan} key with --rpm ${keySpec.rpm} --burst ${keySpec.burst}`;
  const runs = { auto: [], v1: [] };
  const files = Object.fromEntries(DIALECTS.map((d) => [d, path.join(ctx.tmpDir, `default-dialect-${d}.csv`)]));
  const planned = {};
  try {
    for (let round = 0; round < rounds; round++) {
      for (const api of DIALECTS) {
        const key = await createKey(ctx.db, { account: `bench-auto-${process.pid}-${api}-${round}`, ...keySpec });
        const r = await runMsnap(['snapshots', market.market_id, '-o', files[api], '--quiet', '--verbose'], {
          env: { ...ctx.cliEnv(server.url, key), MSNAP_API: api },
          tmpDir: ctx.tmpDir,
        });
        runs[api].push({ wallMs: r.wallMs, requests: (r.stderr.match(/ GET /g) ?? []).length, snapshotRequests: (r.stderr.match(/\/snapshots\?/g) ?? []).length });
      }
    }
    const key = await createKey(ctx.db, { account: `bench-auto-${process.pid}-plan`, plan: 'builder' });
    for (const api of ['auto', 'v1', 'v4']) {
      const r = await runMsnap(['snapshots', market.market_id, '--dry-run'], { env: { ...ctx.cliEnv(server.url, key), MSNAP_API: api } });
      planned[api] = Number(/ in ([\d,]+) snapshot requests/.exec(r.stderr)?.[1]?.replace(/,/g, '') ?? NaN);
    }
  } finally {
    await server.stop();
  }
  const [a, b] = await Promise.all(DIALECTS.map((d) => csvDigest(files[d])));
  for (const f of Object.values(files)) rmSync(f, { force: true });
  const same = a.hash === b.hash && a.rows === b.rows ? 1 : 0;
  const best = (api) => Math.min(...runs[api].map((r) => r.wallMs));
  const rate = (api) => a.rows / (best(api) / 1000);
  const ratio = rate('auto') / rate('v1');
  const snapshotRequests = (api) => runs[api][0].snapshotRequests;
  return {
    title: 'Default dialect: --api auto against msnap serve',
    method:
      `\`msnap snapshots ${market.market_id} -o F.csv\` (${a.rows.toLocaleString('en-US')} rows, one complete ${type} market) ` +
      `on ${keyText}, ${rounds} alternating rounds of --api auto and --api v1, a fresh account per run; ` +
      'wall time from spawn to exit, best of the rounds; rows/s = rows / that time. Requests counted from --verbose; v4\'s from --dry-run.',
    rows: [
      { name: 'Default dialect: --api auto rows/s', value: rate('auto'), unit: ' rows/s' },
      { name: 'Default dialect: --api v1 rows/s', value: rate('v1'), unit: ' rows/s' },
      { name: 'Default dialect: auto / v1 (fastest dialect)', value: ratio, unit: 'x', target: describeTarget(SPEED_TARGET, 'x'), verdict: judge({ value: ratio, ...SPEED_TARGET }) },
      { name: 'Default dialect: same bytes (1 = yes)', value: same, target: describeTarget({ exactly: 1 }), verdict: judge({ value: same, exactly: 1 }) },
      { name: 'Default dialect: auto snapshot requests', value: snapshotRequests('auto'), target: describeTarget({ exactly: snapshotRequests('v1') }), verdict: judge({ value: snapshotRequests('auto'), exactly: snapshotRequests('v1') }) },
    ],
    commands: DIALECTS.map((api) => `msnap snapshots ${market.market_id} -o F.csv --api ${api}`),
    notes: [
      ...DIALECTS.map((api) => `${api}: ${runs[api].map((r) => `${(r.wallMs / 1000).toFixed(2)} s, ${r.requests} requests`).join('; ')}`),
      `Planned snapshot requests (--dry-run): auto ${planned.auto}, v1 ${planned.v1}, v4 ${planned.v4}.`,
    ],
  };
}
