// `msnap at`: the snapshot nearest a time, in a market given by id or found from coin and type;
// with --times, one lookup per line of a file (or stdin), in order, through the paced client.
import { addLocalDbOption } from '../global-options.js';
import { Command } from 'commander';
import { isComingSoonCoin, marketId, marketStartCovering, parseCoin } from '../../domain/market.js';
import { HttpError, NotFoundError, UsageError, WindowError } from '../../errors.js';
import { coinArg, marketIdArg, marketTypeArg } from '../../domain/arguments.js';
import { openTimes, timesLines, type TimesLine, type TimesTarget } from '../batch-times.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { AT_SCHEMA, atSchemaWithOrderbook, BATCH_AT_SCHEMA, type BatchAtRow } from '../output/schemas/record-schemas.js';
import { parseTime, TIME_HELP } from '../../domain/time.js';

/** The checked arguments of `msnap at`. */
export interface AtOptions {
  marketId: string;
  ts: number;
  /** --orderbook: the snapshot's depth too. */
  orderbook?: boolean;
  /** Given as COIN TYPE TIME: the series the market was derived from (for a "no such market" message). */
  series?: string;
}

/** The checked arguments of `msnap at … --times`. */
export interface AtBatchOptions {
  /** The market of lines that hold only a TIME; none for market_id,time CSV. */
  target?: TimesTarget;
  /** A file, or `-` for stdin. */
  times: string;
}

/** `at <market-id> <time>` or `at <coin> <type> <time>`; the market covering the time is derived. */
export function parseAtArgs(first: string | undefined, second: string | undefined, third: string | undefined, now: number): AtOptions {
  if (first === undefined || second === undefined) {
    throw new UsageError('give <market-id> <time> or <coin> <type> <time> (or --times FILE for many)');
  }
  if (third === undefined) {
    // `at BTC 5m`: a coin and a type with the time left out, not a bad market id.
    if (parseCoin(first) || isComingSoonCoin(first)) throw new UsageError(`missing TIME: msnap at ${first} ${second} TIME`, 'TIME is like 2025-11-22T00:02:30Z, 1763769600000, 10m or now');
    return { marketId: marketIdArg(first), ts: parseTime(second, now, 'TIME') };
  }
  const coin = coinArg(first);
  const type = marketTypeArg(second);
  const ts = parseTime(third, now, 'TIME');
  return { marketId: marketId(coin, type, marketStartCovering(type, ts)), ts, series: `${coin} ${type}` };
}

/** With --times the arguments name only the market: `<market-id>`, `<coin> <type>`, or nothing (CSV). */
function parseAtBatchArgs(args: (string | undefined)[], times: string): AtBatchOptions {
  const given = args.filter((a): a is string => a !== undefined);
  if (given.length === 0) return { times };
  if (given.length === 1) return { times, target: { marketId: marketIdArg(given[0]!) } };
  if (given.length === 2) return { times, target: { coin: coinArg(given[0]!), marketType: marketTypeArg(given[1]!) } };
  throw new UsageError('with --times the times come from the file: give only <market-id> or <coin> <type>');
}

/** Look the snapshot up and write it. */
export async function runAt(opts: AtOptions, deps: CliDeps): Promise<void> {
  const client = await deps.client();
  const result = await client.at(opts.marketId, opts.ts, { includeOrderbook: opts.orderbook === true }).catch((err: unknown) => {
    // The user named a time, not the derived id: say which time no market covers.
    if (opts.series !== undefined && err instanceof NotFoundError && /market/i.test(err.message) && !/snapshot/i.test(err.message)) {
      throw new NotFoundError(`no ${opts.series} market covers ${new Date(opts.ts).toISOString()} (${opts.marketId} does not exist)`);
    }
    throw err;
  });
  await (await deps.exporter()).record(opts.orderbook ? atSchemaWithOrderbook() : AT_SCHEMA, result);
}

// Answers about one line (not found, outside the plan, a 400) become its error row; anything about
// the run itself (no key, unreachable, rate limited) stops the batch.
function lineError(err: unknown): string | undefined {
  if (err instanceof NotFoundError || err instanceof WindowError || err instanceof UsageError) return err.message;
  if (err instanceof HttpError && err.status === 400) return err.message;
  return undefined;
}

/** Look up every line in order and write one row per line; returns how many lines failed. */
async function runAtBatch(opts: AtBatchOptions, deps: CliDeps, stdin: NodeJS.ReadableStream): Promise<{ rows: number; failed: number }> {
  const lines = timesLines(await openTimes(opts.times, stdin), opts.target, deps.now());
  const client = await deps.client();
  let rows = 0;
  let failed = 0;
  async function* answers(): AsyncGenerator<BatchAtRow> {
    for await (const item of lines) {
      rows += 1;
      if ('error' in item) {
        failed += 1;
        yield errorRow(item, item.error);
        continue;
      }
      try {
        const r = await client.at(item.marketId, item.ts);
        yield { line: item.line, market_id: r.market_id, ts: r.ts, delta_ms: r.delta_ms, snapshot: r.snapshot, error: null };
      } catch (err) {
        const message = lineError(err);
        if (message === undefined) throw err;
        failed += 1;
        yield errorRow(item, message);
      }
    }
  }
  await (await deps.exporter()).list(BATCH_AT_SCHEMA, answers());
  if (failed > 0) deps.note(`${failed} of ${rows} lines failed (see their error column)`);
  return { rows, failed };
}

function errorRow(item: TimesLine, error: string): BatchAtRow {
  return { line: item.line, market_id: item.marketId, ts: item.ts, delta_ms: null, snapshot: null, error };
}

/** The `at` command. */
export function atCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('at'))
    .description('The snapshot nearest a time (within 2 s), in a market or in the COIN TYPE market covering it')
    .usage('<market-id> <time> | <coin> <type> <time> | [<market-id> | <coin> <type>] --times FILE')
    .argument('[market-id|coin]', 'a market id, or a coin (BTC, ETH, SOL)')
    .argument('[time|type]', 'the TIME, or with a coin the market type')
    .argument('[time]', 'with a coin and type: the TIME')
    .option('--times <file>', 'many lookups: one TIME per line, or CSV with market_id,time columns ("-" = stdin)')
    .option('--orderbook', 'include the snapshot\'s orderbook depth (orderbook_up, orderbook_down), where stored')
    .addHelpText(
      'after',
      `
${TIME_HELP}
delta_ms is the snapshot's time minus the asked time (the earlier snapshot wins a tie).
With --times: one row per input line, in order, with its line number; a bad line gets an error
row (error column) instead of stopping the batch. Blank lines and # comments are skipped.

Examples:
  $ msnap at BTC 5m 2025-11-22T00:02:30Z
  $ msnap at BTC 15m 10m --json
  $ msnap at btc-updown-5m-1763769600 1763769612345
  $ msnap at BTC 5m --times times.txt --csv          # one TIME per line
  $ msnap at --times lookups.csv -o answers.parquet  # market_id,time CSV
  $ msnap at BTC 5m 1763769612345 --db msnap.db          # a pulled store, offline
  $ msnap at BTC 5m 10m --orderbook --json               # with the books`,
    )
    .action(async (first: string | undefined, second: string | undefined, third: string | undefined, flags: { times?: string; orderbook?: boolean }, cmd: Command) => {
      if (flags.times !== undefined) {
        if (flags.orderbook) throw new UsageError('--orderbook works on one lookup, not with --times');
        const batch = parseAtBatchArgs([first, second, third], flags.times);
        await runWithDeps(ctx, cmd, async (deps) => void (await runAtBatch(batch, deps, ctx.stdin)));
        return;
      }
      const opts = { ...parseAtArgs(first, second, third, ctx.now()), ...(flags.orderbook ? { orderbook: true } : {}) };
      await runWithDeps(ctx, cmd, (deps) => runAt(opts, deps));
    });
}
