// Figure 15: backtest speed and memory. (a) `msnap backtest` of a rule over a local store without
// books against bench/baseline-backtest.js, a plain loop over `msnap snapshots --db --ndjson`
// doing the same rule, alternately, best of each; (b) books at speed: over a store with books on
// every snapshot, the rule on the best ask and bid against the rule on the quote over its twin
// without books (same seed flags, no books), and the example maker strategy (--maker-fill queue)
// over both, as ratios within one run (this machine's absolute speed varies 3x from day to day);
// (c) peak RSS, without books and with; (d) a sweep of 8 combinations (worker threads) against
// the same 8 combinations as single runs one after another.
import path from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import { ROOT, runMsnap, runNode } from '../child-process.js';
import { seedDatabase } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

// The issue's targets hold for >= 10M snapshots (full mode). Quick mode reads ~350k, where the
// process's start (~0.3 s) weighs most and a loaded machine halves it: its targets guard against
// a regression only (it ran 0.54-1.27M/s at load 10-11 on the shared 2 cores, 0.30M/s at load 16).
const FULL_TARGETS = { ratio: { min: 10 }, rate: { min: 5_000_000 } };
const QUICK_TARGETS = { ratio: { min: 2 }, rate: { min: 250_000 } };
const MEMORY_TARGET = { max: 150 };
// Issue 35: with books / without books on the same markets, both modes (quick mode's runs are
// shorter, so the process start weighs more on both sides of each ratio).
const BOOK_RULE_TARGET = { min: 0.4 };
const MAKER_TARGET = { min: 0.2 };
const MAKER = path.join(ROOT, 'examples/maker-quotes.js');
const SWEEP_TARGET = { min: 1.6 };

const RULE = {
  name: 'bench-rule',
  side: 'up',
  size: 10,
  entry: [{ field: 'price_up', op: '<', value: 0.3 }, { field: 'elapsed_ms', op: '>=', value: 60000 }],
  exit: [{ field: 'price_up', op: '>', value: 0.6 }],
};

// With books the rule reads them on every snapshot (best ask to enter, best bid to exit); the
// sweep-queue figure sweeps it too.
export const BOOK_RULE = {
  name: 'bench-book-rule',
  side: 'up',
  size: 10,
  entry: [{ field: 'ask', op: '<', value: 0.3 }, { field: 'elapsed_ms', op: '>=', value: 60000 }],
  exit: [{ field: 'bid', op: '>', value: 0.6 }],
};

/** `msnap backtest` as a process; returns the parsed result, wall time and peak RSS. */
async function backtest(ctx, db, sel, extra = [], opts = {}) {
  const strategy = opts.strategy === MAKER ? MAKER : path.join(ctx.tmpDir, opts.strategy ?? 'bench-rule.json');
  const args = ['backtest', strategy, sel.coin, sel.type, '--last', String(sel.last), '--db', db, '--format', 'json', '--quiet', ...extra];
  const r = await runMsnap(args, { tmpDir: ctx.tmpDir, measureRss: opts.measureRss ?? false, env: ctx.cliEnv('http://127.0.0.1:1', '') });
  if (r.code !== 0) throw new Error(`msnap ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  return { wallMs: r.wallMs, peakRssKb: r.peakRssKb, stdout: r.stdout, command: `msnap ${args.join(' ').replace(strategy, 'rule.json').replace(db, 'DB')}` };
}

/** Run figure 15 on its own stores (sizes from ctx.sizes.backtest). */
export async function backtestFigure(ctx) {
  const spec = ctx.sizes.backtest;
  writeFileSync(path.join(ctx.tmpDir, 'bench-rule.json'), JSON.stringify(RULE));
  writeFileSync(path.join(ctx.tmpDir, 'bench-book-rule.json'), JSON.stringify(BOOK_RULE));
  const plain = path.join(ctx.tmpDir, 'backtest-plain.db');
  const books = path.join(ctx.tmpDir, 'backtest-books.db');
  const twin = path.join(ctx.tmpDir, 'backtest-twin.db');
  try {
    await seedDatabase(plain, { ...spec.plain.db, orderbookMinutes: 0 }, { tmpDir: ctx.tmpDir });
    await seedDatabase(books, spec.books.db, { tmpDir: ctx.tmpDir });
    await seedDatabase(twin, { ...spec.books.db, orderbookDays: undefined, orderbookMinutes: 0 }, { tmpDir: ctx.tmpDir });
    const rounds = ctx.quick ? 1 : 3;
    let ours;
    let base;
    for (let i = 0; i < rounds; i++) {
      const o = await backtest(ctx, plain, spec.plain, [], { measureRss: true });
      if (!ours || o.wallMs < ours.wallMs) ours = { ...o, peakRssKb: Math.max(o.peakRssKb ?? 0, ours?.peakRssKb ?? 0) };
      const sel = spec.plain;
      const b = await runNode(path.join(ROOT, 'bench/baseline-backtest.js'), ['--db', plain, '--coin', sel.coin, '--type', sel.type, '--last', String(sel.last), '--entry', '0.3', '--after', '60000', '--exit', '0.6'], { tmpDir: ctx.tmpDir });
      if (b.code !== 0) throw new Error(`baseline failed: ${b.stderr.slice(-2000)}`);
      if (!base || b.wallMs < base.wallMs) base = b;
    }
    const result = JSON.parse(ours.stdout);
    const snapshots = result.data.snapshots;
    const baseRows = JSON.parse(base.stdout).rows;
    const rate = snapshots / (ours.wallMs / 1000);
    const baseRate = baseRows / (base.wallMs / 1000);
    // Books at speed: each pair alternately, best of each, so a change of load hits both sides
    // (both under GNU time, for the peak RSS with books: memory stays flat).
    const rss = { measureRss: true };
    const pairs = {
      rule: [() => backtest(ctx, books, spec.books, [], { ...rss, strategy: 'bench-book-rule.json' }), () => backtest(ctx, twin, spec.books, [], rss)],
      maker: [
        () => backtest(ctx, books, spec.books, ['--maker-fill', 'queue'], { ...rss, strategy: MAKER }),
        () => backtest(ctx, twin, spec.books, ['--maker-fill', 'queue'], { ...rss, strategy: MAKER }),
      ],
    };
    const bestRuns = {};
    for (const [name, [withFn, withoutFn]] of Object.entries(pairs)) {
      let w;
      let wo;
      let peakKb = 0;
      for (let i = 0; i < rounds; i++) {
        const a = await withFn();
        if (!w || a.wallMs < w.wallMs) w = a;
        peakKb = Math.max(peakKb, a.peakRssKb ?? Number.NaN);
        const b = await withoutFn();
        if (!wo || b.wallMs < wo.wallMs) wo = b;
      }
      bestRuns[name] = { with: w, without: wo, peakMb: peakKb / 1024 };
    }
    const rateOf = (run) => JSON.parse(run.stdout).data.snapshots / (run.wallMs / 1000);
    const withBooks = bestRuns.rule.with;
    const bookSnapshots = JSON.parse(withBooks.stdout).data.snapshots;
    const bookRate = rateOf(withBooks);
    const twinRate = rateOf(bestRuns.rule.without);
    const makerRate = rateOf(bestRuns.maker.with);
    const makerTwinRate = rateOf(bestRuns.maker.without);
    const makerFills = JSON.parse(bestRuns.maker.with.stdout).summary.fills;
    // The sweep: 8 combinations on the worker pool against the same 8 as single runs in a row.
    const values = [0.2, 0.25, 0.3, 0.35];
    const sweep = await backtest(ctx, plain, spec.sweep, ['--sweep', `entry.0.value=${values.join(',')}`, '--sweep', 'size=5,10']);
    let singles = 0;
    for (const v of values) for (const size of [5, 10]) singles += (await backtest(ctx, plain, spec.sweep, ['--set', `entry.0.value=${v}`, '--set', `size=${size}`])).wallMs;
    const sweepRatio = singles / sweep.wallMs;
    const peakMb = (ours.peakRssKb ?? NaN) / 1024;
    const { ratio: RATIO_TARGET, rate: RATE_TARGET } = ctx.quick ? QUICK_TARGETS : FULL_TARGETS;
    return {
      title: 'Backtest',
      method:
        `\`msnap backtest\` of a rule (entry price_up < 0.3 after 60 s, exit > 0.6) over ${snapshots.toLocaleString('en-US')} snapshots of a store without books, ` +
        `against bench/baseline-backtest.js (\`msnap snapshots --db --ndjson\` piped into a JSON.parse loop doing the same rule, fills at the quote), ${rounds} round(s), best of each, ` +
        'processes timed from spawn to exit, peak RSS from GNU time; over a store with books on every snapshot, the same rule on the best ask and bid (every book read), ' +
        'against the rule on price_up over its twin seeded with the same flags and no books, and examples/maker-quotes.js with --maker-fill queue over both, each pair run alternately, best of each; ' +
        `a sweep of 8 combinations (\`--sweep entry.0.value=… --sweep size=5,10\`, worker threads) against the 8 single runs one after another, over ${spec.sweep.coin} ${spec.sweep.type} --last ${spec.sweep.last}.`,
      rows: [
        { name: 'Backtest: snapshots/s, local store without books', value: rate, unit: ' snapshots/s', target: describeTarget(RATE_TARGET), verdict: judge({ value: rate, ...RATE_TARGET }) },
        { name: 'Backtest: baseline loop over snapshots --ndjson, rows/s', value: baseRate, unit: ' rows/s' },
        { name: 'Backtest: msnap / baseline', value: rate / baseRate, unit: 'x', target: describeTarget(RATIO_TARGET, 'x'), verdict: judge({ value: rate / baseRate, ...RATIO_TARGET }) },
        { name: 'Backtest: snapshots/s with books (rule on bid/ask)', value: bookRate, unit: ' snapshots/s' },
        { name: 'Backtest: snapshots/s, same markets without books (rule on price_up)', value: twinRate, unit: ' snapshots/s' },
        { name: 'Backtest: rule on bid/ask with books / rule without books', value: bookRate / twinRate, unit: 'x', target: describeTarget(BOOK_RULE_TARGET, 'x'), verdict: judge({ value: bookRate / twinRate, ...BOOK_RULE_TARGET }) },
        { name: 'Backtest: snapshots/s, maker example (--maker-fill queue) with books', value: makerRate, unit: ' snapshots/s' },
        { name: 'Backtest: snapshots/s, maker example, same markets without books', value: makerTwinRate, unit: ' snapshots/s' },
        { name: 'Backtest: maker example with books / without books', value: makerRate / makerTwinRate, unit: 'x', target: describeTarget(MAKER_TARGET, 'x'), verdict: judge({ value: makerRate / makerTwinRate, ...MAKER_TARGET }) },
        { name: 'Backtest: peak RSS (without books)', value: peakMb, unit: ' MB', target: describeTarget(MEMORY_TARGET, ' MB'), verdict: judge({ value: peakMb, ...MEMORY_TARGET }) },
        { name: 'Backtest: peak RSS, rule on bid/ask with books', value: bestRuns.rule.peakMb, unit: ' MB', target: describeTarget(MEMORY_TARGET, ' MB'), verdict: judge({ value: bestRuns.rule.peakMb, ...MEMORY_TARGET }) },
        { name: 'Backtest: peak RSS, maker example with books', value: bestRuns.maker.peakMb, unit: ' MB' },
        { name: 'Backtest: 8 single runs / sweep of 8 (wall time)', value: sweepRatio, unit: 'x', target: describeTarget(SWEEP_TARGET, 'x'), verdict: judge({ value: sweepRatio, ...SWEEP_TARGET }) },
      ],
      commands: [ours.command, 'node bench/baseline-backtest.js --db DB --coin … --type … --last … --entry 0.3 --after 60000 --exit 0.6', withBooks.command, bestRuns.rule.without.command, bestRuns.maker.with.command, sweep.command],
      notes: [
        `Runs: msnap ${(ours.wallMs / 1000).toFixed(2)} s, baseline ${(base.wallMs / 1000).toFixed(2)} s (${baseRows.toLocaleString('en-US')} rows), with books ${(withBooks.wallMs / 1000).toFixed(2)} s (${bookSnapshots.toLocaleString('en-US')} snapshots), sweep ${(sweep.wallMs / 1000).toFixed(2)} s, 8 singles ${(singles / 1000).toFixed(2)} s.`,
        `Books at speed: rule with books ${(withBooks.wallMs / 1000).toFixed(2)} s, without ${(bestRuns.rule.without.wallMs / 1000).toFixed(2)} s; maker with books ${(bestRuns.maker.with.wallMs / 1000).toFixed(2)} s (${makerFills} fills), without ${(bestRuns.maker.without.wallMs / 1000).toFixed(2)} s.`,
        `The baseline and the backtest read the same ${baseRows === snapshots ? 'rows' : `data (rows differ: ${baseRows} vs ${snapshots})`}.`,
      ],
    };
  } finally {
    rmSync(plain, { force: true });
    rmSync(books, { force: true });
    rmSync(twin, { force: true });
  }
}
