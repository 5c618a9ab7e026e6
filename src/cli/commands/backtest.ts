// `msnap backtest STRATEGY <market-id> | COIN TYPE`: test a rule file or a JavaScript strategy on
// the markets `msnap snapshots` would select (docs/backtest-model.md), from a local store or the service.
import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { BacktestParams } from '../../backtest/params.js';
import { parseSweeps, type SweepAxis } from '../../backtest/sweep-plan.js';
import { addLocalDbOption, readGlobals } from '../global-options.js';
import type { CliContext } from '../context.js';
import { runWithDeps } from '../deps.js';
import { resolveFormat } from '../output/format.js';
import { colorEnabled } from '../terminal-policy.js';
import { TIME_HELP } from '../../domain/time.js';
import { coinArg, countArg, DEFAULT_QUEUE_NAME, marketTypeArg, queueNameArg } from '../../domain/arguments.js';
import { parseRedisUrl } from '../../ratelimit/redis-url.js';
import { parseSnapshotsArgs } from './snapshots.js';
import type { BacktestOptions, BacktestView } from './backtest-run.js';

export type { BacktestOptions };


interface RawFlags {
  last?: string;
  from?: string;
  to?: string;
  cash?: string;
  latencyMs?: string;
  feeRate?: string;
  fees?: string;
  /** Commander reads `--no-book X` as a negated flag: X here, `true` when absent. */
  book?: string | boolean;
  makerFill?: string;
  set?: string[];
  sweep?: string[];
  trades?: string;
  html?: string;
  db?: string;
  queue?: string;
  queueName?: string;
  resume?: boolean;
  chunk?: string;
}

function numberFlag(text: string, flag: string, ok: (x: number) => boolean, what: string): number {
  const x = Number(text);
  if (text.trim() === '' || !Number.isFinite(x) || !ok(x)) throw new UsageError(`${flag} must be ${what}, got '${text}'`);
  return x;
}

function paramFlags(flags: RawFlags): Partial<BacktestParams> {
  const p: Partial<BacktestParams> = {};
  if (flags.cash !== undefined) p.cash = numberFlag(flags.cash, '--cash', (x) => x > 0, 'a number > 0');
  if (flags.latencyMs !== undefined) p.latency_ms = countArg(flags.latencyMs, '--latency-ms', 0);
  if (flags.feeRate !== undefined) p.fee_rate = numberFlag(flags.feeRate, '--fee-rate', (x) => x >= 0 && x < 1, 'a number in [0, 1)');
  if (flags.fees !== undefined) {
    if (flags.fees !== 'none' && flags.fees !== 'taker') throw new UsageError(`--fees takes 'none' (or 'taker', the default), got '${flags.fees}'`);
    p.fees = flags.fees;
  }
  if (typeof flags.book === 'string') {
    if (flags.book !== 'reject' && flags.book !== 'quote') throw new UsageError(`--no-book takes 'reject' (or 'quote', the default), got '${flags.book}'`);
    p.no_book = flags.book;
  }
  if (flags.makerFill !== undefined) {
    if (flags.makerFill !== 'cross' && flags.makerFill !== 'queue') throw new UsageError(`--maker-fill takes 'cross' (the default) or 'queue', got '${flags.makerFill}'`);
    p.maker_fill = flags.makerFill;
  }
  return p;
}

/** Check arguments and flags; every problem is a UsageError (the strategy itself is checked when loaded, before any data). */
export function parseBacktestArgs(strategy: string, first: string, second: string | undefined, flags: RawFlags, now: number): BacktestOptions {
  // Several coins and types at once (BTC,ETH 5m,15m): every pair, on one clock.
  const coins = first.split(',');
  const types = second?.split(',') ?? [];
  const { target, last, from, to } = parseSnapshotsArgs(coins[0]!, types[0], { last: flags.last, from: flags.from, to: flags.to }, now);
  const several = coins.length > 1 || types.length > 1;
  if (several && 'marketId' in target) throw new UsageError('a market id stands alone: list coins and types instead (BTC,ETH 5m,15m)');
  const targets = several ? coins.flatMap((c) => types.map((t) => ({ coin: coinArg(c), marketType: marketTypeArg(t) }))) : undefined;
  const sweeps = parseSweeps(flags.sweep ?? []);
  if (sweeps.length > 0 && (flags.trades !== undefined || flags.html !== undefined)) {
    throw new UsageError('--sweep writes one summary row per combination: drop --trades/--html, or run one combination with --set');
  }
  if (flags.trades !== undefined) resolveFormat({ output: flags.trades }, false);
  const queue = queueFlags(flags, sweeps.length > 0);
  return {
    strategy,
    target,
    ...(targets !== undefined ? { targets } : {}),
    ...(last !== undefined ? { last } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    params: paramFlags(flags),
    sets: flags.set ?? [],
    sweeps,
    ...(flags.trades !== undefined ? { trades: flags.trades } : {}),
    ...(flags.html !== undefined ? { html: flags.html } : {}),
    ...(flags.db !== undefined ? { db: flags.db } : {}),
    ...(queue !== undefined ? { queue } : {}),
  };
}

function queueFlags(flags: RawFlags, sweeping: boolean): BacktestOptions['queue'] {
  if (flags.queue === undefined) {
    const stray = flags.resume ? '--resume' : flags.queueName !== undefined ? '--queue-name' : flags.chunk !== undefined ? '--chunk' : undefined;
    if (stray) throw new UsageError(`${stray} goes with --queue redis://HOST (a sweep spread over msnap worker processes)`);
    return undefined;
  }
  if (!sweeping) throw new UsageError('--queue spreads a sweep over workers: add --sweep PATH=V1,V2,…');
  const target = parseRedisUrl(flags.queue);
  return {
    target,
    name: queueNameArg(flags.queueName),
    resume: flags.resume === true,
    chunk: flags.chunk !== undefined ? countArg(flags.chunk, '--chunk', 1) : 1,
  };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The `backtest` command. */
export function backtestCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('backtest'))
    .description('Test a strategy on past markets: fills that walk the orderbook, latency, fees, settlement')
    .argument('<strategy>', 'a rule file (.json) or a JavaScript module (.js, .mjs)')
    .argument('<market-id|coin>', 'a market id (btc-updown-5m-1763769600), or a coin (BTC, ETH, SOL), or coins (BTC,ETH)')
    .argument('[type]', 'with a coin: the market type (5m, 15m, 1hr, 4hr, 24hr), or types (5m,15m): every pair runs on one clock')
    .option('--last <n>', 'with COIN TYPE: the latest N markets that have snapshots (default 1; all in a --from/--to range)')
    .option('--from <time>', 'snapshots at or after TIME (with COIN TYPE: markets overlapping the range)')
    .option('--to <time>', 'snapshots before TIME')
    .option('--cash <usdc>', 'starting cash (default 1000)')
    .option('--latency-ms <ms>', 'orders execute on the first snapshot this long after the decision (default 0)')
    .option('--fee-rate <rate>', "one taker fee rate for every market: shares × rate × p × (1 − p) in USDC (default: each market's fee schedule, else its era's)")
    .option('--fees <none>', "'none': no fees")
    .option('--no-book <reject>', "'reject': refuse orders on snapshots without the side's orderbook (default: fill at the quote, flagged)")
    .option('--maker-fill <model>', "how resting (maker) orders fill: 'cross' (default: when the book trades through the price) or 'queue' (behind the size at the price)")
    .option('--set <path=value>', 'override a strategy field (rule) or param (module), repeatable: --set size=5 --set entry.0.value=0.25', collect)
    .option('--sweep <path=v1,v2,...>', 'run every combination of these values (repeatable), one summary row each, on all cores', collect)
    .option('--trades <file>', 'write every trade to FILE (.csv, .ndjson, .json, .parquet)')
    .option('--html <file>', 'write a self-contained report page (summary, equity curve, PnL histogram, trades)')
    .option('--queue <redis-url>', 'with --sweep: put the combinations on this Redis job queue and gather what msnap worker processes return')
    .option('--queue-name <name>', `with --queue: the queue (default ${DEFAULT_QUEUE_NAME})`)
    .option('--resume', 'with --queue: gather a sweep an earlier (stopped) submission left on the queue')
    .option('--chunk <n>', 'with --queue: combinations per job (default 1)')
    .addHelpText(
      'after',
      `
The model (fills, fees, settlement, statistics) is docs/backtest.md. A rule file:
  { "name": "cheap-up", "side": "up", "size": 10,
    "entry": [{ "field": "price_up", "op": "<", "value": 0.3 }],
    "exit": [{ "field": "price_up", "op": ">", "value": 0.6 }] }
Fields: price, price_up, price_down, side_price, elapsed_ms, remaining_ms, change, bid, ask.
A maker (resting, post-only) entry or exit: "entry_maker": { "price": "bid", "offset": 0, "ttl_ms": 30000 }.
Output: a summary table, an equity chart and the first trades on a terminal; --format json (or -o
FILE.json) the whole result; csv, ndjson and parquet one summary row (with --sweep: one per combination).
${TIME_HELP}
Examples:
  $ msnap backtest cheap-up.json BTC 5m --last 288 --db msnap.db
  $ msnap backtest cheap-up.json BTC 5m --last 288 --db msnap.db --latency-ms 250 --format json
  $ msnap backtest cheap-up.json ETH 15m --from 2025-11-20 --to 2025-11-22 --trades trades.csv --html report.html
  $ msnap backtest cheap-up.json BTC 5m --last 288 --db msnap.db --set size=5 --set entry.0.value=0.25
  $ msnap backtest cheap-up.json BTC 5m --last 288 --db msnap.db --sweep entry.0.value=0.2,0.25,0.3 --sweep size=5,10 --csv
  $ msnap backtest cheap-up.json BTC 5m --last 288 --db msnap.db --sweep size=5,10,20 --queue redis://10.0.0.5 --csv
  $ msnap backtest my-strategy.mjs btc-updown-5m-1763769600 --no-book reject
  $ msnap backtest examples/maker-quotes.js BTC,ETH 5m --last 288 --db msnap.db --maker-fill queue`,
    )
    .action(async (strategy: string, first: string, second: string | undefined, flags: RawFlags, cmd: Command) => {
      const globals = readGlobals(cmd);
      const opts = parseBacktestArgs(strategy, first, second, { ...flags, ...(globals.db !== undefined ? { db: globals.db } : {}) }, ctx.now());
      const output = globals.output === '-' ? undefined : globals.output;
      const terminal = output === undefined && ctx.stdout.isTTY === true;
      const view: BacktestView = {
        tableOnTerminal: terminal && resolveFormat({ ...globals, output }, terminal) === 'table',
        write: (text) => void ctx.stdout.write(text),
        color: colorEnabled(globals, ctx.env, ctx.stdout.isTTY),
        width: (ctx.stdout as { columns?: number }).columns || Number(ctx.env.COLUMNS) || 80,
      };
      // The engine, its outputs and cli-table3 load when a backtest runs, not at every CLI start.
      const { runBacktestCommand } = await import('./backtest-run.js');
      await runWithDeps(ctx, cmd, (deps) => runBacktestCommand(opts, deps, view));
    });
}
