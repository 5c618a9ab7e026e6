// Bench sizes: quick mode runs the same code paths on smaller data so it fits in a CI minute.

/** Parse argv into `{ quick, only, keep, out }` plus the sizes for that mode. */
export function benchOptions(argv) {
  const quick = argv.includes('--quick');
  const onlyIndex = argv.indexOf('--only');
  const only = onlyIndex >= 0 ? new Set(String(argv[onlyIndex + 1] ?? '').split(',').filter(Boolean)) : null;
  return {
    quick,
    only,
    // Keep the temp dir (for a post-mortem) instead of deleting it.
    keep: argv.includes('--keep'),
    // Where the report goes; quick mode and --only write it too, each to a separate file unless
    // told otherwise (BENCHMARKS.md holds one whole full run). Each figure is written to
    // NAME.partial.md beside it as it ends; a finished run replaces that with NAME.md.
    out: valueAfter(argv, '--out') ?? (quick ? 'BENCHMARKS.quick.md' : only ? 'BENCHMARKS.only.md' : 'BENCHMARKS.md'),
    sizes: withRecorderSeconds(quick ? QUICK : FULL, valueAfter(argv, '--recorder-seconds'), quick),
  };
}

// Figure 21 measures the recorder over 300 s in a full run (so the whole run stays under 30
// minutes); --recorder-seconds 600 gives the ten minutes issue 31 asks memory to stay flat over.
function withRecorderSeconds(sizes, value, quick) {
  if (value === undefined) return sizes;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 10) throw new Error(`--recorder-seconds takes a number of seconds (at least 10); got ${value}`);
  return { ...sizes, recorder: { warmupSeconds: quick ? 8 : 15, seconds }, expectedSeconds: { ...sizes.expectedSeconds, 21: seconds + 30 } };
}

function valueAfter(argv, flag) {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
}

// Databases are described by how many of the newest markets of each type get full 8/s
// snapshots, per coin (3 coins); the newest market of a type is the active one and is partial.
//
// Full mode. Main: 410 full 5m markets per coin for the pacing export (one request each) and
// 4 full 24hr markets (3 complete: a 2M-row export for the memory figure). Lookups: ~1M rows in
// 5m markets against ~20M in 24hr and 4hr markets.
const FULL = {
  // Seconds each figure took in a recent full run (its report's wall-time table), for the progress
  // line's time left (scaled by how the finished figures compared with theirs).
  expectedSeconds: { 1: 217, 2: 20, 3: 85, 4: 19, 5: 3, 6: 0, 7: 13, 8: 12, 9: 63, 10: 14, 11: 123, 12: 49, 13: 21, 14: 104, 15: 78, 16: 56, 17: 63, 18: 164, 19: 83, 20: 46, 21: 315 },
  // Figure 19: event rows asked of the generator (issue 36: a file of at least 5M; the hour's last receipts are cut).
  realdataRows: 5_050_000,
  mainDb: { days: 15, full: { '5m': 410, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 4 } },
  pacing: { plan: 'builder', rpm: 250, burst: 12, markets: 400, minRequests: 400 },
  // The pacing figure runs this many times and reports the worst (a 429 is a rare event).
  pacingRuns: 3,
  exportType: '24hr',
  exportRounds: 5,
  memoryExport: { type: '24hr', minRows: 2_000_000 },
  depthPageSeconds: 8,
  defaultDialectKey: { plan: 'builder' },
  loadSeconds: 20,
  loadSlices: 5,
  warmupSeconds: 1,
  connections: 10,
  lookups: {
    count: 2000,
    small: { days: 15, full: { '5m': 139, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } },
    large: { days: 15, full: { '5m': 0, '15m': 0, '1hr': 0, '4hr': 6, '24hr': 10 } },
  },
  live: { count: 4000, db: { days: 2, full: { '5m': 72, '15m': 24, '1hr': 6, '4hr': 3, '24hr': 1 } } },
  // Figure 12: every snapshot with books (~2.4M).
  depth: { days: 2, full: { '5m': 144, '15m': 48, '1hr': 12, '4hr': 3, '24hr': 0 } },
  // Figures 12 and 18: the "before" layouts (books as JSON text; PostgreSQL rows) and their
  // migrations, on smaller stores seeded alike (bytes per row and rows/s do not depend on size;
  // at the full store's size they took minutes each).
  depthBefore: { days: 1, full: { '5m': 72, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } },
  pgBefore: { days: 1, full: { '5m': 24, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } },
  // Figure 18's stores: every market type like figure 12's, a quarter of its 4M snapshots. Bytes
  // per snapshot and pages of 1,000 do not depend on the size; the import of figure 12's store
  // with books into PostgreSQL alone took 10 of the figure's 13 minutes on a busy machine.
  pgStore: { days: 1, full: { '5m': 36, '15m': 12, '1hr': 3, '4hr': 2, '24hr': 0 } },
  // Figure 15: 4,200 BTC 5m markets (10.1M snapshots) without books; 287 5m markets (689k
  // snapshots) with books on every snapshot; a sweep over a day of 5m markets.
  backtest: {
    plain: { db: { days: 16, full: { '5m': 4300, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } }, coin: 'BTC', type: '5m', last: 4200 },
    books: { db: { days: 1, full: { '5m': 288, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookDays: 1 }, coin: 'BTC', type: '5m', last: 287 },
    sweep: { coin: 'BTC', type: '5m', last: 288 },
  },
};

// Quick mode: the same steps on a ~4.7M-row main store, with targets that a pass of the full run
// implies (see docs/testing.md, "Quick mode"). Pacing is the full run's export once (a burst-bound
// run is a different test: its fixed costs weigh 5x more over 14 s), on a store of its own so the
// main one stays small; the exports are the full run's (one complete 24hr market, 691,200 rows, 5
// rounds; a 4hr market's 115,200 rows export in about the time node takes to start); lookups at
// ~100k against ~1M rows; ratios of short loads over more, longer slices.
const QUICK = {
  expectedSeconds: { 1: 75, 2: 14, 3: 17, 4: 4, 5: 1, 6: 0, 7: 10, 8: 5, 9: 28, 10: 11, 11: 38, 12: 14, 13: 21, 14: 27, 15: 7, 16: 35, 17: 19, 18: 52, 20: 15, 21: 38 },
  mainDb: { days: 15, full: { '5m': 80, '15m': 0, '1hr': 0, '4hr': 2, '24hr': 2 } },
  pacing: { plan: 'builder', rpm: 250, burst: 12, markets: 400, minRequests: 400, db: { days: 2, full: { '5m': 402, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } } },
  pacingRuns: 1,
  exportType: '24hr',
  // As many rounds as the full run: Parquet / CSV (figure 7) has ~5% of margin at full size.
  exportRounds: 5,
  // Figure 9's dialects and figure 18's SQLite / PostgreSQL pages: 1 s slices, 8 and 6 of them.
  dialectLoad: { loadSeconds: 8, loadSlices: 4 },
  pgPagesLoad: { loadSeconds: 6, loadSlices: 6 },
  // Figure 12: seconds of in-process page reads per kind.
  depthPageSeconds: 6,
  // Figure 16: a 4hr market (12 pages) on a key whose burst makes the export pace-bound, like the
  // full run's 70 pages on a builder key (what auto must not slow down), in a fifth of the time.
  defaultDialectType: '4hr',
  defaultDialectKey: { plan: 'enterprise', rpm: 1000, burst: 4 },
  // The memory figure reads the figure 2 export's peak RSS instead of a second, larger export.
  memoryExport: null,
  loadSeconds: 3,
  loadSlices: 3,
  warmupSeconds: 0.5,
  connections: 10,
  lookups: {
    count: 1000,
    small: { days: 15, full: { '5m': 14, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } },
    large: { days: 15, full: { '5m': 0, '15m': 0, '1hr': 12, '4hr': 0, '24hr': 0 } },
  },
  live: { count: 1500, db: { days: 1, full: { '5m': 12, '15m': 4, '1hr': 1, '4hr': 0, '24hr': 0 } } },
  // Figures 12 and 18 (which reads figure 12's store with books).
  depth: { days: 1, full: { '5m': 24, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } },
  backtest: {
    plain: { db: { days: 2, full: { '5m': 150, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 } }, coin: 'BTC', type: '5m', last: 144 },
    books: { db: { days: 1, full: { '5m': 48, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0 }, orderbookDays: 1 }, coin: 'BTC', type: '5m', last: 47 },
    sweep: { coin: 'BTC', type: '5m', last: 48 },
  },
};
