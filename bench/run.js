#!/usr/bin/env node
// `npm run bench` (full, under 30 minutes on 2 cores) and `npm run bench -- --quick` (a few
// minutes, smaller sizes, same code paths, targets its size can judge). Seeds real SQLite files,
// starts real `msnap serve` processes on loopback, runs the built CLI as a process, and writes the
// figures with their targets; each figure is written to a partial report as it ends (harness.js),
// with its wall time. Quick mode exits non-zero when a figure misses its target by more than
// WIDE_MISS (or fails to run), so it can guard CI.
// Flags: --quick, --only 1,2,...  --out FILE, --keep (keep temp files), --recorder-seconds N.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT } from './child-process.js';
import { describeMachine } from './machine.js';
import { seedDatabase } from './msnap-commands.js';
import { benchOptions } from './options.js';
import { createHarness, formatDuration } from './harness.js';
import { formatValue } from './report.js';
import { WIDE_MISS, describeTarget, judge } from './targets.js';
import { pacingFigure } from './figures/pacing.js';
import { exportFigures, MEMORY_TARGET_MB } from './figures/export-throughput.js';
import { serverThroughputFigure, SERVER_MEMORY_TARGET_MB } from './figures/server-throughput.js';
import { storageFigure } from './figures/storage-ingest.js';
import { pointLookupFigure } from './figures/point-lookups.js';
import { offlineMirrorFigure } from './figures/offline-mirror.js';
import { dialectPagesFigure } from './figures/dialect-pages.js';
import { parquetFigure } from './figures/parquet-export.js';
import { liveLatencyFigure } from './figures/live-latency.js';
import { scaleOutFigure } from './figures/scale-out.js';
import { depthFigure } from './figures/depth-storage.js';
import { libraryIteratorFigure } from './figures/library-iterator.js';
import { serveSoakFigure } from './figures/serve-soak.js';
import { backtestFigure } from './figures/backtest.js';
import { defaultDialectFigure } from './figures/default-dialect.js';
import { streamFanoutFigure } from './figures/stream-fanout.js';
import { pgStorageFigure } from './figures/pg-storage.js';
import { realdataImportFigure } from './figures/realdata-import.js';
import { sweepQueueFigure } from './figures/sweep-queue.js';
import { recorderFigure } from './figures/recorder.js';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  // A user's first try: never start a 30-minute run by asking how to run it.
  process.stdout.write(`Usage: npm run bench [-- --quick] [-- --only N,M] [-- --out FILE] [-- --keep]

  --quick     smaller sizes, the full run's targets where the size allows (docs/testing.md)
  --only N,M  only these figures (written to BENCHMARKS.only.md unless --out)
  --out FILE  where the report goes (default BENCHMARKS.md; quick: BENCHMARKS.quick.md)
  --keep      keep the temp dir
  --recorder-seconds N
              figure 21's window (full: 300 s; 600 for issue 31's ten minutes)

Each figure is written to FILE's .partial.md as it ends, so a stopped run keeps what it measured.
`);
  process.exit(0);
}
let opts;
try {
  opts = benchOptions(process.argv.slice(2));
} catch (err) {
  // A mistyped flag is one line and exit 2, never a stack trace.
  process.stderr.write(`bench: ${err.message}\n`);
  process.exit(2);
}
const started = performance.now();
const machine = describeMachine();
const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'msnap-bench-'));
const configDir = path.join(tmpDir, 'config');
mkdirSync(configDir);
const cleanup = () => {
  if (!opts.keep) rmSync(tmpDir, { recursive: true, force: true });
};
const log = (message) => process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);

/** What every figure gets: sizes, the main database, a temp dir, and the CLI's environment. */
const ctx = {
  quick: opts.quick,
  sizes: opts.sizes,
  tmpDir,
  db: path.join(tmpDir, 'bench.db'),
  // The CLI talks to the given server with the given key and keeps its config in the temp dir.
  cliEnv: (baseUrl, key) => ({ MSNAP_BASE_URL: baseUrl, MSNAP_API_KEY: key, MSNAP_CONFIG_DIR: configDir, XDG_CONFIG_HOME: configDir, MSNAP_STATE_DIR: path.join(tmpDir, 'state'), NO_COLOR: '1', CI: '1' }),
};

const wanted = (id) => !opts.only || opts.only.has(String(id));
const outFile = opts.out ? path.resolve(ROOT, opts.out) : undefined;
let cliMemory;
let serverPeakRssMb;
let seed;

// Nothing else runs during figure 1: extra CPU load (an overlapped seed was tried) adds latency
// jitter between the pacer's send and the server's arrival, which is what the 429 count is meant
// to catch in msnap, not in the bench.
const steps = [
  { id: 1, title: 'Pacing efficiency', run: () => pacingFigure(ctx) },
  {
    id: 2, title: 'Export throughput', run: async () => {
      const r = await exportFigures(ctx);
      cliMemory = r.cliMemory;
      return r.exportFigure;
    },
  },
  {
    id: 3, title: 'Server throughput', run: async () => {
      const r = await serverThroughputFigure(ctx);
      serverPeakRssMb = r.serverPeakRssMb;
      return r.figure;
    },
  },
  {
    id: 4, title: 'Point lookups stay flat', run: async () => {
      const dbs = await seedLookupDatabases();
      try {
        return await pointLookupFigure(ctx, dbs);
      } finally {
        for (const { file } of Object.values(dbs)) rmSync(file, { force: true });
      }
    },
  },
  {
    id: 5, title: 'Storage and ingest', run: () => {
      if (!ctx.importCsv) throw new Error('needs the CSV written by figure 2, which did not run');
      return storageFigure(ctx, { seed, exportCsv: ctx.importCsv });
    },
  },
  {
    id: 6, title: 'Memory stays flat', run: () => {
      if (!cliMemory && serverPeakRssMb === undefined) throw new Error('needs figures 2 and 3, which did not run');
      return memoryFigure(cliMemory, serverPeakRssMb);
    },
  },
  { id: 7, title: 'Parquet output', run: () => parquetFigure(ctx, cliMemory) },
  { id: 8, title: 'Live ticks do not stall requests', run: () => liveLatencyFigure(ctx) },
  { id: 9, title: 'Dialects: snapshot pages', run: () => dialectPagesFigure(ctx) },
  { id: 10, title: 'Offline mirror', run: () => offlineMirrorFigure(ctx) },
  { id: 11, title: 'Scale-out: PostgreSQL and several instances', run: () => scaleOutFigure(ctx) },
  { id: 12, title: 'Depth: packed orderbooks', run: () => depthFigure(ctx) },
  { id: 13, title: 'Library iterator', run: () => libraryIteratorFigure(ctx) },
  { id: 14, title: 'Serve soak: honest and hostile traffic together', run: () => serveSoakFigure(ctx) },
  { id: 15, title: 'Backtest', run: () => backtestFigure(ctx) },
  { id: 16, title: 'Default dialect: --api auto against msnap serve', run: () => defaultDialectFigure(ctx) },
  { id: 17, title: 'Stream fan-out', run: () => streamFanoutFigure(ctx) },
  { id: 18, title: 'PostgreSQL storage: snapshots in blocks', run: () => pgStorageFigure(ctx) },
  // Full runs only: its point is a real-size hour (5M rows; minutes to generate the first time).
  ...(opts.sizes.realdataRows ? [{ id: 19, title: 'Real data: PMXT archive import', run: () => realdataImportFigure(ctx, { rows: opts.sizes.realdataRows }) }] : []),
  { id: 20, title: 'Sweeps across machines: a Redis job queue', run: () => sweepQueueFigure(ctx) },
  { id: 21, title: 'Recorder: a busy market channel into SQLite', run: () => recorderFigure(ctx) },
].filter((step) => wanted(step.id));

const harness = createHarness({
  steps,
  out: outFile,
  expected: opts.sizes.expectedSeconds,
  log,
  started,
  report: { machine, mode: opts.quick ? 'quick' : 'full', invocation: opts.quick ? 'npm run bench -- --quick' : 'npm run bench' },
});
// Stopped by Ctrl-C or a kill: the partial report beside --out keeps every finished figure.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    harness.interrupt(signal);
    cleanup();
    process.exit(128 + os.constants.signals[signal]);
  });
}

let exitCode = 0;
try {
  log(`${opts.quick ? 'quick' : 'full'} mode; figures ${steps.map((s) => s.id).join(', ')}; temp dir ${tmpDir}${harness.partial ? `; each figure is written to ${path.relative(ROOT, harness.partial)} as it ends` : ''}`);
  seed = await seedDatabase(ctx.db, opts.sizes.mainDb, { tmpDir });
  log(`seeded ${seed.snapshots.toLocaleString('en-US')} snapshots, ${seed.orderbooks.toLocaleString('en-US')} orderbooks, ${seed.markets} markets in ${(seed.wallMs / 1000).toFixed(1)} s`);
  harness.setupDone('Setup: seed the main store', seed.wallMs / 1000);

  const { figures, times } = await harness.runAll();
  const totalSeconds = (performance.now() - started) / 1000;
  if (outFile) {
    harness.finish();
    log(`wrote ${opts.out}`);
  }
  process.stdout.write(summary(figures, times, totalSeconds) + '\n');
  const wide = figures.flatMap((f) => (f.error ? [`${f.id}: ${f.error}`] : f.rows.filter((r) => r.verdict && !r.verdict.pass && r.verdict.miss > WIDE_MISS).map((r) => `${r.name}: ${formatValue(r.value)} vs ${r.target}`)));
  if (wide.length > 0) {
    log(`${opts.quick ? 'FAIL' : 'note'}: wide misses (> ${WIDE_MISS * 100}% off target) or errors:\n  ${wide.join('\n  ')}`);
    if (opts.quick) exitCode = 1;
  }
  if (figures.some((f) => f.error)) exitCode = 1;
  log(`done in ${totalSeconds.toFixed(1)} s`);
} catch (err) {
  log(`bench failed: ${err.stack ?? err}`);
  if (harness.partial) log(`${path.relative(ROOT, harness.partial)} keeps the figures measured so far`);
  exitCode = 1;
} finally {
  cleanup();
}
process.exit(exitCode);

async function seedLookupDatabases() {
  const dbs = {};
  for (const size of ['small', 'large']) {
    const file = path.join(tmpDir, `lookups-${size}.db`);
    const s = await seedDatabase(file, opts.sizes.lookups[size], { tmpDir });
    log(`lookups ${size}: ${s.snapshots.toLocaleString('en-US')} snapshots seeded in ${(s.wallMs / 1000).toFixed(1)} s`);
    dbs[size] = { file, snapshots: s.snapshots, seed: s };
  }
  return dbs;
}

function memoryFigure(cli, serverMb) {
  const rows = [];
  const notes = [];
  const commands = [];
  if (cli) {
    // Full mode judges a separate export of 2M+ rows; quick mode judges the figure 2 export.
    const big = cli.memoryRun ?? { rows: cli.exportRows, peakRssMb: cli.exportRss, command: cli.exportCommand };
    rows.push({ name: `Memory: CLI peak RSS exporting ${big.rows.toLocaleString('en-US')} rows`, value: big.peakRssMb, unit: ' MB', target: describeTarget(MEMORY_TARGET_MB, ' MB'), verdict: judge({ value: big.peakRssMb, ...MEMORY_TARGET_MB }) });
    if (cli.memoryRun) rows.push({ name: `Memory: CLI peak RSS exporting ${cli.exportRows.toLocaleString('en-US')} rows (figure 2)`, value: cli.exportRss, unit: ' MB' });
    commands.push(big.command);
    if (big.wallMs) notes.push(`The large export took ${(big.wallMs / 1000).toFixed(1)} s (${Math.round(big.rows / (big.wallMs / 1000)).toLocaleString('en-US')} rows/s).`);
  }
  if (serverMb !== undefined) {
    rows.push({ name: 'Memory: server peak RSS under the load test', value: serverMb, unit: ' MB', target: describeTarget(SERVER_MEMORY_TARGET_MB, ' MB'), verdict: judge({ value: serverMb, ...SERVER_MEMORY_TARGET_MB }) });
    commands.push('msnap serve --db FILE --port 0   # VmHWM from /proc/PID/status after the figure 3 runs');
  }
  return {
    title: 'Memory stays flat',
    method: 'Peak RSS of the CLI from GNU time (`/usr/bin/time -f %M`, the kernel\'s maxrss; VmHWM polled from /proc when it is missing); of the server, VmHWM from /proc/PID/status of the `msnap serve` process after all of figure 3\'s load runs.',
    rows,
    commands,
    notes,
  };
}

function summary(list, times, totalSeconds) {
  const lines = ['', `msnap bench (${opts.quick ? 'quick' : 'full'})`, ''];
  for (const f of list) {
    if (f.error) { lines.push(`${f.id}. ${f.title}: ERROR ${f.error}`); continue; }
    for (const r of f.rows) {
      const verdict = r.verdict ? (r.verdict.pass ? 'pass' : 'FAIL') : '';
      lines.push(`${f.id}. ${r.name.padEnd(58)} ${(formatValue(r.value) + (r.unit ?? '')).padStart(18)}  ${String(r.target ?? '').padEnd(22)} ${verdict}`);
    }
  }
  lines.push('', 'Wall time per figure:');
  for (const t of times) lines.push(`${t.setup ? '   ' : `${String(t.id).padStart(2)}.`} ${t.title.padEnd(58)} ${formatDuration(t.seconds).padStart(12)}`);
  lines.push(`    ${'All'.padEnd(58)} ${formatDuration(totalSeconds).padStart(12)}`);
  return lines.join('\n');
}
