// `msnap chart`: a market's asset price and probability of up over its life, drawn in the terminal.
import { Command } from 'commander';
import { ColumnSampler } from '../../analysis/chart-series.js';
import type { Market } from '../../domain/market.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { coinArg, countArg, marketIdArg, marketTypeArg } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { colorEnabled } from '../terminal-policy.js';
import { addLocalDbOption, readGlobals } from '../global-options.js';
import { labelWidthFor, MIN_CHART_WIDTH, plotColumns, renderChart } from '../output/terminal/chart.js';
import { explainSelection, selectMarkets } from '../../client/markets/market-selection.js';
import type { SnapshotsTarget } from './snapshots.js';

/** The checked arguments and flags of `msnap chart`. */
export interface ChartOptions {
  target: SnapshotsTarget;
  /** Characters per line; default the terminal's width (or COLUMNS, else 80). */
  width: number;
  height: number;
}

/** Where and how the chart is drawn (decided from the terminal, NO_COLOR and --no-color). */
export interface ChartView {
  write(text: string): void;
  color: boolean;
}

interface RawFlags {
  width?: string;
  height?: string;
}

/** Check arguments and flags; `terminalWidth` is the stdout's columns when it is a terminal. */
function parseChartArgs(first: string, second: string | undefined, flags: RawFlags, terminalWidth: number | undefined, env: NodeJS.ProcessEnv): ChartOptions {
  const target: SnapshotsTarget = second === undefined ? { marketId: marketIdArg(first) } : { coin: coinArg(first), marketType: marketTypeArg(second) };
  const envWidth = env.COLUMNS && /^\d+$/.test(env.COLUMNS) ? Number(env.COLUMNS) : undefined;
  const width = flags.width !== undefined ? countArg(flags.width, '--width', MIN_CHART_WIDTH) : terminalWidth ?? envWidth ?? 80;
  if (width < MIN_CHART_WIDTH) throw new UsageError(`the terminal is ${width} columns wide; a chart needs ${MIN_CHART_WIDTH} (or pass --width)`);
  const height = flags.height !== undefined ? countArg(flags.height, '--height', 3) : 12;
  return { target, width, height };
}

function title(m: Market, count: number): string {
  const day = new Date(m.start_time).toISOString().slice(0, 10);
  const t = (ms: number): string => new Date(ms).toISOString().slice(11, 19);
  const result = m.winner ? `  ${m.winner}` : m.status === 'active' ? '  (running)' : '';
  return `${m.market_id}  ${day} ${t(m.start_time)}-${t(m.end_time)} UTC  ${count.toLocaleString('en-US')} snapshots${result}`;
}

/** Draw the market: one pass over its snapshots, one value kept per column. */
async function runChart(opts: ChartOptions, deps: CliDeps, view: ChartView): Promise<void> {
  const client = await deps.client();
  let market: Market;
  if ('marketId' in opts.target) {
    market = await client.market(opts.target.marketId);
  } else {
    const selection = await selectMarkets(client, opts.target.coin, opts.target.marketType, { last: 1 });
    await explainSelection(selection, { last: 1 }, opts.target.coin, opts.target.marketType, client, deps.note);
    const [newest] = selection.markets;
    if (!newest) throw new NotFoundError(`no ${opts.target.coin} ${opts.target.marketType} market with snapshots`);
    market = newest;
  }
  // The labels' width depends on the price, known from the market before any snapshot arrives.
  const labelWidth = labelWidthFor([(market.price_start ?? 1_000_000) * 1.5]);
  const sampler = new ColumnSampler(market.start_time, market.end_time, plotColumns(opts.width, labelWidth));
  for await (const page of client.snapshotPages(market.market_id, {})) {
    for (const s of page.rows()) sampler.add(s.time, s.price, s.price_up);
  }
  const series = sampler.series();
  if (series.count === 0) throw new NotFoundError(`${market.market_id} has no snapshots to draw`);
  view.write(renderChart(title(market, series.count), series, { width: opts.width, height: opts.height, color: view.color }));
}

/** The `chart` command. */
export function chartCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('chart'))
    .description("Draw a market's asset price and probability of up over its life in the terminal")
    .argument('<market-id|coin>', 'a market id, or a coin (BTC, ETH, SOL): its newest market with snapshots')
    .argument('[type]', 'with a coin: the market type (5m, 15m, 1hr, 4hr, 24hr)')
    .option('--width <n>', `characters per line (default: the terminal's width, else COLUMNS, else 80; at least ${MIN_CHART_WIDTH})`)
    .option('--height <n>', 'rows of the price chart (default 12; the probability chart gets half)')
    .addHelpText(
      'after',
      `
Each column is an equal slice of the market's life and shows the last snapshot in it (a slice with
none repeats the one before). Colours only on a terminal, never with NO_COLOR or --no-color.

Examples:
  $ msnap chart BTC 5m
  $ msnap chart btc-updown-1hr-1763769600 --height 20
  $ msnap chart ETH 24hr --width 120 > eth.txt
  $ msnap chart BTC 5m --db msnap.db                      # a pulled store, offline`,
    )
    .action(async (first: string, second: string | undefined, flags: RawFlags, cmd: Command) => {
      const terminal = ctx.stdout.isTTY ? (ctx.stdout as { columns?: number }).columns : undefined;
      const opts = parseChartArgs(first, second, flags, terminal, ctx.env);
      const globals = readGlobals(cmd);
      if (globals.output !== undefined || globals.format !== undefined || globals.csv || globals.json || globals.ndjson) {
        throw new UsageError('chart draws text for a terminal; for data use msnap snapshots (with --csv, --json, -o ...)');
      }
      const view: ChartView = { write: (text) => void ctx.stdout.write(text), color: colorEnabled(globals, ctx.env, ctx.stdout.isTTY) };
      await runWithDeps(ctx, cmd, (deps) => runChart(opts, deps, view));
    });
}
