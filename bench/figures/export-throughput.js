// Figure 2 (and the CLI half of figure 6): one full 24hr market exported to CSV by msnap and by
// the minimal baseline script, alternately, against the same server. Rows/s of each process from
// spawn to exit; the two files must hold the same rows once formatting is normalised.
import path from 'node:path';
import { rmSync } from 'node:fs';
import { runMsnap, runNode, ROOT } from '../child-process.js';
import { csvDigest } from '../csv-digest.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const TARGET = { min: 0.9 };
const MEMORY_TARGET_MB = { max: 150 };
const BASELINE = path.join(ROOT, 'bench', 'baseline-export.js');

/** Run the export comparison and the large-export memory run; returns figures 2 and 6a. */
export async function exportFigures(ctx) {
  const key = await createKey(ctx.db, { account: `bench-export-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const [market] = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 1 });
  if (!market) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
  const server = await startMsnapServe(ctx.db);
  const msnapOut = path.join(ctx.tmpDir, 'export-msnap.csv');
  const baseOut = path.join(ctx.tmpDir, 'export-baseline.csv');
  const msnapArgs = ['snapshots', market.market_id, '--csv', '-o', msnapOut, '--quiet'];
  const env = ctx.cliEnv(server.url, key);
  const msnapRuns = [];
  const baseRuns = [];
  let memoryRun;
  try {
    // Alternate so that drift on the shared machine hits both sides alike; best of each counts.
    for (let round = 0; round < ctx.sizes.exportRounds; round++) {
      const b = await runNode(BASELINE, ['--base-url', server.url, '--api-key', key, '--market', market.market_id, '-o', baseOut], { tmpDir: ctx.tmpDir });
      if (b.code !== 0) throw new Error(`baseline export failed: ${b.stderr.slice(-2000)}`);
      baseRuns.push({ wallMs: b.wallMs, rows: JSON.parse(b.stdout.trim().split('\n').pop()).rows });
      const m = await runMsnap(msnapArgs, { env, measureRss: true, tmpDir: ctx.tmpDir });
      msnapRuns.push({ wallMs: m.wallMs, peakRssKb: m.peakRssKb });
    }
    memoryRun = ctx.sizes.memoryExport ? await memoryExport(ctx, env) : undefined;
  } finally {
    await server.stop();
  }
  const [mDigest, bDigest] = await Promise.all([csvDigest(msnapOut), csvDigest(baseOut)]);
  ctx.exportCsv = { file: msnapOut, rows: mDigest.rows, market };
  ctx.importCsv ??= ctx.exportCsv;
  rmSync(baseOut, { force: true });
  const rows = bDigest.rows;
  const best = (runs) => Math.max(...runs.map((r) => rows / (r.wallMs / 1000)));
  const msnapRate = best(msnapRuns);
  const baseRate = best(baseRuns);
  const ratio = msnapRate / baseRate;
  const same = mDigest.rows === bDigest.rows && mDigest.hash === bDigest.hash;
  const exportRss = Math.max(...msnapRuns.map((r) => r.peakRssKb ?? 0)) / 1024;
  const exportCommand = `msnap snapshots ${market.market_id} --csv -o msnap.csv --quiet`;
  const exportFigure = {
    title: 'Export throughput',
    method:
      `\`msnap snapshots ${market.market_id} --csv -o FILE\` (one complete ${market.market_type} market, ${rows.toLocaleString('en-US')} rows) ` +
      'against bench/baseline-export.js (plain fetch at limit=10000, JSON.parse, a string join per row), alternately, ' +
      `${ctx.sizes.exportRounds} round(s), best of each, both as processes timed from spawn to exit, enterprise key with limits out of the way.`,
    rows: [
      { name: 'Export: msnap rows/s', value: msnapRate, unit: ' rows/s' },
      { name: 'Export: baseline rows/s', value: baseRate, unit: ' rows/s' },
      { name: 'Export: msnap / baseline', value: ratio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: ratio, ...TARGET }) },
      { name: 'Export: same rows as baseline', value: same ? 'yes' : 'NO', target: 'yes', verdict: { pass: same, miss: same ? 0 : Infinity } },
    ],
    commands: [
      `node bench/baseline-export.js --base-url URL --api-key KEY --market ${market.market_id} -o baseline.csv`,
      `msnap snapshots ${market.market_id} --csv -o msnap.csv --quiet`,
    ],
    notes: [
      `msnap runs: ${msnapRuns.map((r) => `${(r.wallMs / 1000).toFixed(2)} s`).join(', ')}; baseline runs: ${baseRuns.map((r) => `${(r.wallMs / 1000).toFixed(2)} s`).join(', ')}.`,
      `Normalised comparison (columns ${mDigest.columns.join(', ')}, numbers in shortest form): msnap ${mDigest.rows} rows sha256 ${mDigest.hash.slice(0, 16)}, ` +
        `baseline ${bDigest.rows} rows sha256 ${bDigest.hash.slice(0, 16)}${same ? '' : `; first rows msnap ${JSON.stringify(mDigest.sample.slice(0, 2))} vs baseline ${JSON.stringify(bDigest.sample.slice(0, 2))}`}.`,
    ],
  };
  return { exportFigure, cliMemory: { exportRss, exportRows: rows, exportCommand, memoryRun } };
}

// The memory half: a bigger export (several complete markets) with peak RSS from the kernel.
async function memoryExport(ctx, env) {
  const { type, minRows } = ctx.sizes.memoryExport;
  const out = path.join(ctx.tmpDir, 'memory-export.csv');
  const plan = pickMemoryExport(ctx.db, type, minRows);
  const args = ['snapshots', plan.coin, plan.type, '--last', String(plan.last), '--csv', '-o', out, '--quiet'];
  const run = await runMsnap(args, { env, measureRss: true, tmpDir: ctx.tmpDir });
  const { rows } = await csvDigest(out, ['time']);
  // Kept for figure 5, which imports the largest export the run made.
  ctx.importCsv = { file: out, rows };
  return { rows, peakRssMb: (run.peakRssKb ?? NaN) / 1024, wallMs: run.wallMs, command: `msnap ${args.map((a) => (a === out ? 'memory.csv' : a)).join(' ')}` };
}

/**
 * The fewest newest markets of one series holding `need` rows in complete markets. `--last N`
 * also takes the partial active market, which only adds rows.
 */
export function pickMemoryExport(db, type, need) {
  const markets = fullMarkets(db, { type, coin: 'BTC', limit: 100_000 });
  let rows = 0;
  for (let i = 0; i < markets.length; i++) {
    rows += markets[i].snapshot_count;
    if (rows >= need) return { coin: 'BTC', type, last: i + 2, rows };
  }
  throw new Error(`the seeded database holds ${rows} rows in complete BTC ${type} markets; the memory export needs ${need}`);
}

export { MEMORY_TARGET_MB };
