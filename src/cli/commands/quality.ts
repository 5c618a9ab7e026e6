// `msnap quality`: a data-quality report per market (grid coverage, gaps, duplicate and
// out-of-order times, bad probabilities, up + down off 1, price jumps, orderbook coverage).
import { Command } from 'commander';
import type { QualityReport } from '../../analysis/quality.js';
import { scanMarket } from '../../client/markets/market-quality.js';
import type { Market } from '../../domain/market.js';
import { EXIT, NotFoundError, QualityProblemsError, UsageError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { addLocalDbOption } from '../global-options.js';
import { QUALITY_SCHEMA } from '../output/schemas/quality-schema.js';
import { TIME_HELP } from '../../domain/time.js';
import { explainSelection, selectMarkets } from '../../client/markets/market-selection.js';
import { parseSnapshotsArgs, type SnapshotsOptions } from './snapshots.js';

/** The checked arguments and flags of `msnap quality`. */
export interface QualityOptions extends Pick<SnapshotsOptions, 'target' | 'last' | 'from' | 'to'> {
  sumTolerance: number;
  strict: boolean;
}

interface RawFlags {
  last?: string;
  from?: string;
  to?: string;
  sumTolerance?: string;
  strict?: boolean;
}

/** Check arguments and flags (the market choice is `snapshots`'); every problem is a UsageError. */
export function parseQualityArgs(first: string, second: string | undefined, flags: RawFlags, now: number): QualityOptions {
  const { target, last, from, to } = parseSnapshotsArgs(first, second, { ...flags, orderbook: false }, now);
  let sumTolerance = 0.05;
  if (flags.sumTolerance !== undefined) {
    sumTolerance = Number(flags.sumTolerance);
    if (!/^\d*\.?\d+$/.test(flags.sumTolerance.trim()) || !(sumTolerance >= 0 && sumTolerance < 1)) {
      throw new UsageError(`--sum-tolerance must be a number in [0, 1), got '${flags.sumTolerance}'`);
    }
  }
  return { target, ...(last !== undefined ? { last } : {}), ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}), sumTolerance, strict: flags.strict === true };
}

/** Write one report row per market; returns the number of problems found. */
export async function runQuality(opts: QualityOptions, deps: CliDeps): Promise<number> {
  const client = await deps.client();
  let markets: Market[];
  if ('marketId' in opts.target) {
    markets = [await client.market(opts.target.marketId)];
  } else {
    const selection = await selectMarkets(client, opts.target.coin, opts.target.marketType, opts);
    await explainSelection(selection, opts, opts.target.coin, opts.target.marketType, client, deps.note);
    markets = selection.markets;
    if (markets.length === 0) throw new NotFoundError(`no ${opts.target.coin} ${opts.target.marketType} market with snapshots in that range`);
  }
  const exporter = await deps.exporter();
  const progress = await deps.progress('quality');
  let problems = 0;
  let done = 0;
  async function* reports(): AsyncGenerator<QualityReport> {
    for (const m of markets) {
      const report = await scanMarket(client, m, opts, deps.now());
      problems += report.problems;
      done += 1;
      progress.update({ pages: done, rows: done, total: markets.length });
      yield report;
    }
  }
  try {
    await exporter.list(QUALITY_SCHEMA, reports());
  } finally {
    progress.stop();
  }
  return problems;
}

/** The `quality` command. */
export function qualityCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('quality'))
    .description('Data-quality report per market: grid coverage, gaps, duplicates, bad probabilities, jumps')
    .argument('<market-id|coin>', 'a market id, or a coin (BTC, ETH, SOL)')
    .argument('[type]', 'with a coin: the market type (5m, 15m, 1hr, 4hr, 24hr)')
    .option('--last <n>', 'with COIN TYPE: the latest N markets that have snapshots (default 1; all in a --from/--to range)')
    .option('--from <time>', 'check from TIME')
    .option('--to <time>', 'check up to TIME')
    .option('--sum-tolerance <x>', 'how far price_up + price_down may be from 1 (default 0.05)')
    .option('--strict', `exit ${EXIT.qualityProblems} when any problem is found (after writing the report)`)
    .addHelpText(
      'after',
      `
${TIME_HELP}
Snapshots are expected every 125 ms from the market's start to its end (a running market: to its
last snapshot). Problems: gaps (missing grid slots), duplicates (two snapshots in one 125 ms slot),
out-of-order times, probabilities outside [0, 1], price_up + price_down off 1 by more than the
tolerance, and price steps beyond 12 robust standard deviations (median absolute deviation of the
market's steps, scaled by the time elapsed). Orderbook coverage is reported, not counted.

Examples:
  $ msnap quality BTC 5m --last 12
  $ msnap quality btc-updown-5m-1763769600 --json
  $ msnap quality ETH 1hr --from 2d --csv -o eth-quality.csv
  $ msnap quality SOL 15m --last 96 --strict || echo "problems found"
  $ msnap quality BTC 5m --last 12 --db msnap.db          # a pulled store, offline`,
    )
    .action(async (first: string, second: string | undefined, flags: RawFlags, cmd: Command) => {
      const opts = parseQualityArgs(first, second, flags, ctx.now());
      let problems = 0;
      await runWithDeps(ctx, cmd, async (deps) => {
        problems = await runQuality(opts, deps);
      });
      // After the report is complete (and an -o file committed): the exit code tells scripts.
      if (opts.strict && problems > 0) throw new QualityProblemsError(`quality: ${problems} problem${problems === 1 ? '' : 's'} found (--strict)`);
    });
}
