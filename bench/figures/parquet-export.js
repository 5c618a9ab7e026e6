// Figure 7: Parquet beside CSV for the same rows. The figure 2 market exported with `-o F.csv`
// and `-o F.parquet` alternately (rows/s from spawn to exit, file sizes, the Parquet row count
// read back with hyparquet); then the large memory export again as Parquet, its peak RSS judged
// against the same limit as the CSV export's.
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { parquetMetadata } from 'hyparquet';
import { runMsnap } from '../child-process.js';
import { csvDigest } from '../csv-digest.js';
import { createKey, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';
import { MEMORY_TARGET_MB, pickMemoryExport } from './export-throughput.js';

const SIZE_TARGET = { max: 0.5 };
// Issue 25: at least 1M rows/s or 0.8x the CSV export's rows/s, whichever is lower (the
// ratio, judged against the lower of the two bounds).
const SPEED_RATIO = 0.8;
const SPEED_RATE = 1_000_000;
// The last full run before the columnar writer (BENCHMARKS.md on 21c8964), shown beside this run's.
const BEFORE = 'Before issue 25 (BENCHMARKS.md, full run on 21c8964): Parquet 410,484 rows/s against CSV 815,226 rows/s (0.504x); peak RSS 145.9 MB against CSV 111.3 MB.';

function parquetRows(file) {
  const buf = readFileSync(file);
  return Number(parquetMetadata(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)).num_rows);
}

/** Run the comparison; `csvMemory` is figure 6's CLI memory run (CSV), when it ran. */
export async function parquetFigure(ctx, csvMemory) {
  if (!ctx.exportCsv) throw new Error('needs the market of figure 2, which did not run');
  const { market } = ctx.exportCsv;
  const key = await createKey(ctx.db, { account: `bench-parquet-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const server = await startMsnapServe(ctx.db);
  const env = ctx.cliEnv(server.url, key);
  const csv = path.join(ctx.tmpDir, 'parquet-figure.csv');
  const parquet = path.join(ctx.tmpDir, 'parquet-figure.parquet');
  const csvRuns = [];
  const parquetRuns = [];
  let memory;
  try {
    for (let round = 0; round < ctx.sizes.exportRounds; round++) {
      csvRuns.push(await runMsnap(['snapshots', market.market_id, '-o', csv, '--quiet'], { env, measureRss: true, tmpDir: ctx.tmpDir }));
      parquetRuns.push(await runMsnap(['snapshots', market.market_id, '-o', parquet, '--quiet'], { env, measureRss: true, tmpDir: ctx.tmpDir }));
    }
    if (ctx.sizes.memoryExport) {
      const { type, minRows } = ctx.sizes.memoryExport;
      const plan = pickMemoryExport(ctx.db, type, minRows);
      const out = path.join(ctx.tmpDir, 'memory-export.parquet');
      const args = ['snapshots', plan.coin, plan.type, '--last', String(plan.last), '-o', out, '--quiet'];
      const run = await runMsnap(args, { env, measureRss: true, tmpDir: ctx.tmpDir });
      memory = { rows: parquetRows(out), peakRssMb: (run.peakRssKb ?? NaN) / 1024, wallMs: run.wallMs, command: `msnap ${args.map((a) => (a === out ? 'memory.parquet' : a)).join(' ')}` };
      rmSync(out, { force: true });
    }
  } finally {
    await server.stop();
  }
  for (const r of [...csvRuns, ...parquetRuns]) if (r.code !== 0) throw new Error(`export failed: ${r.stderr.slice(-2000)}`);
  const { rows } = await csvDigest(csv);
  const pRows = parquetRows(parquet);
  const csvBytes = statSync(csv).size;
  const parquetBytes = statSync(parquet).size;
  rmSync(csv, { force: true });
  rmSync(parquet, { force: true });
  const best = (runs) => Math.max(...runs.map((r) => rows / (r.wallMs / 1000)));
  const csvRate = best(csvRuns);
  const parquetRate = best(parquetRuns);
  const same = pRows === rows;
  // Quick mode has no large export: the figure's own Parquet export stands in for it.
  const big = memory ?? { rows, peakRssMb: Math.max(...parquetRuns.map((r) => r.peakRssKb ?? NaN)) / 1024, command: `msnap snapshots ${market.market_id} -o F.parquet --quiet` };
  const csvPeak = csvMemory?.memoryRun?.peakRssMb ?? Math.max(...csvRuns.map((r) => r.peakRssKb ?? NaN)) / 1024;
  const sizeRatio = parquetBytes / csvBytes;
  const speedRatio = parquetRate / csvRate;
  const speedTarget = { min: Math.min(SPEED_RATIO, SPEED_RATE / csvRate) };
  return {
    title: 'Parquet output',
    method:
      `\`msnap snapshots ${market.market_id} -o F.csv\` and \`-o F.parquet\` (Snappy) alternately, ${ctx.sizes.exportRounds} round(s), best of each, ` +
      `${rows.toLocaleString('en-US')} rows, timed from spawn to exit against the same local server; the Parquet file's row count read back with hyparquet. ` +
      'Peak RSS from GNU time for a Parquet export of the large memory run (quick mode: of this export), against the limit of the CSV export (figure 6). ' +
      'Plain snapshots are asked for as columns: each page\'s JSON bytes read straight into typed arrays (src/client/pages/snapshot-page-columns.ts), encoded by msnap (src/cli/output/parquet/parquet-chunks.ts, src/cli/output/parquet/snappy.ts) into the bytes hyparquet-writer writes for the same rows.',
    rows: [
      { name: 'Parquet: rows/s', value: parquetRate, unit: ' rows/s' },
      { name: 'Parquet: CSV rows/s (same rows)', value: csvRate, unit: ' rows/s' },
      {
        name: 'Parquet: rows/s / CSV rows/s',
        value: speedRatio,
        unit: 'x',
        target: `${describeTarget({ min: SPEED_RATIO }, 'x')} or ${describeTarget({ min: SPEED_RATE }, ' rows/s')}`,
        verdict: judge({ value: speedRatio, ...speedTarget }),
      },
      { name: 'Parquet: file size', value: parquetBytes, unit: ' B' },
      { name: 'Parquet: CSV file size', value: csvBytes, unit: ' B' },
      { name: 'Parquet: size / CSV size', value: sizeRatio, unit: 'x', target: describeTarget(SIZE_TARGET, 'x'), verdict: judge({ value: sizeRatio, ...SIZE_TARGET }) },
      { name: 'Parquet: same row count as CSV', value: same ? 'yes' : 'NO', target: 'yes', verdict: { pass: same, miss: same ? 0 : Infinity } },
      { name: `Parquet: peak RSS exporting ${big.rows.toLocaleString('en-US')} rows`, value: big.peakRssMb, unit: ' MB', target: describeTarget(MEMORY_TARGET_MB, ' MB'), verdict: judge({ value: big.peakRssMb, ...MEMORY_TARGET_MB }) },
      { name: 'Parquet: CSV peak RSS, same export (figure 6)', value: csvPeak, unit: ' MB' },
    ],
    commands: [`msnap snapshots ${market.market_id} -o msnap.csv --quiet`, `msnap snapshots ${market.market_id} -o msnap.parquet --quiet`, big.command],
    notes: [
      `CSV runs: ${csvRuns.map((r) => `${(r.wallMs / 1000).toFixed(2)} s`).join(', ')}; Parquet runs: ${parquetRuns.map((r) => `${(r.wallMs / 1000).toFixed(2)} s`).join(', ')}.`,
      ...(memory?.wallMs ? [`The large Parquet export took ${(memory.wallMs / 1000).toFixed(1)} s.`] : []),
      BEFORE,
    ],
  };
}
