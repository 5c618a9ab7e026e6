// `msnap watch`: a market's snapshots as they arrive (the current market of a coin and type, or
// one by id; with --follow the next markets of its series too), written like `snapshots` writes
// them, until the market resolves or Ctrl-C. The watching itself is the client's (client/watch.ts).
import { Command } from 'commander';
import type { Snapshot } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import { pageOf, type SnapshotPage } from '../../client/pages/row-page.js';
import type { WatchMode, WatchTarget } from '../../client/watch/watch.js';
import { checkMarketOrCoinType, coinArg, marketIdArg, marketTypeArg } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { snapshotSchema } from '../output/schemas/record-schemas.js';

/** The checked arguments and flags of `msnap watch`. */
export interface WatchCommandOptions {
  target: WatchTarget;
  follow: boolean;
  orderbook: boolean;
  mode: WatchMode;
  /** Poll interval in ms (default: from the key's limits). */
  intervalMs?: number;
}

interface RawFlags {
  follow?: boolean;
  orderbook?: boolean;
  stream?: boolean;
  poll?: boolean;
  interval?: string;
}

/** The least --interval: polls closer than a second would spend the key's budget on empty answers. */
const MIN_INTERVAL_MS = 1000;

function intervalArg(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000) : NaN;
  if (!(ms >= MIN_INTERVAL_MS && ms <= 3_600_000)) {
    throw new UsageError(`--interval must be from 1s to 60m (like 2s, 1500ms, 1m), got '${value}'`);
  }
  return Math.round(ms);
}

/** Check arguments and flags; every problem is a UsageError. */
export function parseWatchArgs(first: string, second: string | undefined, flags: RawFlags): WatchCommandOptions {
  checkMarketOrCoinType(first, second, 'msnap watch <market-id> | <coin> <type>');
  const target: WatchTarget = second === undefined ? { marketId: marketIdArg(first) } : { coin: coinArg(first), marketType: marketTypeArg(second) };
  if (flags.stream && flags.poll) throw new UsageError('--stream and --poll exclude each other');
  if (flags.stream && flags.interval !== undefined) throw new UsageError('--interval sets the poll interval: it does not go with --stream');
  return {
    target,
    follow: flags.follow === true,
    orderbook: flags.orderbook === true,
    mode: flags.stream ? 'stream' : flags.poll ? 'poll' : 'auto',
    ...(flags.interval !== undefined ? { intervalMs: intervalArg(flags.interval) } : {}),
  };
}

/** Watch and write until the (last) market resolves or Ctrl-C; either way the output is complete. */
export async function runWatch(opts: WatchCommandOptions, deps: CliDeps): Promise<void> {
  const client = await deps.client();
  const { watchSnapshots } = await import('../../client/watch/watch.js');
  const stop = new AbortController();
  const unregister = deps.onStop(() => stop.abort());
  const markets = new Set<string>();
  try {
    const batches = watchSnapshots(client, opts.target, {
      follow: opts.follow,
      includeOrderbook: opts.orderbook,
      mode: opts.mode,
      ...(opts.intervalMs !== undefined ? { intervalMs: opts.intervalMs } : {}),
      sleep: (ms, signal) => deps.sleep(ms, signal),
      signal: stop.signal,
      note: (message) => deps.note(message),
      onMarket: (m, via) => {
        markets.add(m.market_id);
        deps.info(`msnap: watching ${m.market_id} (${via === 'stream' ? 'live stream' : 'polling'}), ends ${new Date(m.end_time).toISOString()}`);
      },
    });
    const exporter = await deps.exporter();
    const result = await exporter.follow(snapshotSchema(opts.orderbook), pagesUntil(batches, stop.signal));
    if (!result.readerGone) {
      deps.finished(`${result.rows.toLocaleString('en-US')} snapshots of ${markets.size} market${markets.size === 1 ? '' : 's'}`);
    }
  } finally {
    unregister();
  }
}

// The batches as pages, ending at once when `signal` aborts (Ctrl-C): a request still on its way
// is left to finish on its own, and the generator is closed after it.
async function* pagesUntil(batches: AsyncGenerator<Snapshot[]>, signal: AbortSignal): AsyncGenerator<SnapshotPage> {
  const stopped = new Promise<'stopped'>((resolve) => {
    if (signal.aborted) resolve('stopped');
    signal.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  let done = false;
  try {
    for (;;) {
      const pending = batches.next();
      const next = await Promise.race([pending, stopped]);
      if (next === 'stopped') {
        // A late failure of what was on its way ends nothing any more.
        pending.then(() => batches.return(undefined), () => undefined).catch(() => undefined);
        done = true;
        return;
      }
      if (next.done) {
        done = true;
        return;
      }
      yield pageOf(next.value);
    }
  } finally {
    if (!done) await batches.return(undefined);
  }
}

/** The `watch` command. */
export function watchCommand(ctx: CliContext): Command {
  return new Command('watch')
    .description('Print snapshots as they arrive: the current market of a coin and type, or one market (--follow: the next ones too)')
    .argument('<market-id|coin>', 'a market id (btc-updown-5m-1763769600), or a coin (BTC, ETH, SOL)')
    .argument('[type]', 'with a coin: the market type (5m, 15m, 1hr, 4hr, 24hr); its active market is watched')
    .option('--follow', 'go on into the next markets of the series (each after the one before); else end when the market resolves')
    .option('--orderbook', 'include orderbook depth (orderbook_up, orderbook_down; JSON text in CSV)')
    .option('--stream', "use the server's live stream (/v1/stream) or fail; default: the stream where offered, else polling")
    .option('--poll', 'poll the snapshots endpoint even where a stream is offered')
    .option('--interval <duration>', "time between polls, at least 1s (default: from the key's rate limit, at least 1s)")
    .addHelpText(
      'after',
      `
Writes each snapshot once, oldest first, from the start of the market: the market's rows so far,
then new ones as they arrive. Ends with exit 0 when the market resolves (with --follow: never, the
series goes on) or a replay server's clock has reached its end (with a note); Ctrl-C also ends it with exit 0 and the output complete (an -o file written, a
JSON array closed). A live table on a terminal (plain columns, a row per snapshot), NDJSON when
piped; --csv, --ndjson, --json and -o FILE as for \`msnap snapshots\`.
Where the server offers no stream (the hosted service, a static msnap serve) it polls within the
key's pace; a stream that closes (too slow, too many streams) hands over to polling with a note.

Examples:
  $ msnap watch BTC 5m                                  # the active BTC 5m market, until it resolves
  $ msnap watch BTC 5m --follow --ndjson | my-bot       # every new snapshot, market after market
  $ msnap watch btc-updown-5m-1763769600 --csv -o m.csv
  $ msnap watch ETH 15m --orderbook --follow --json > eth.json   # Ctrl-C closes the array
  $ msnap watch SOL 1hr --poll --interval 5s`,
    )
    .action(async (first: string, second: string | undefined, flags: RawFlags, cmd: Command) => {
      const opts = parseWatchArgs(first, second, flags);
      await runWithDeps(ctx, cmd, (deps) => runWatch(opts, deps));
    });
}
