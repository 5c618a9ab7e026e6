// `msnap paper`: paper trading on `msnap serve` (docs/bots.md): orders filled against the book at
// the server's now with the backtest's fill, fee and cash model; the account, its positions and
// orders; reset. The hosted service has no paper trading: it answers with a one-line error.
import { Command, Option } from 'commander';
import type { PaperApi, PaperOrder } from '../../client/paper-types.js';
import { NotFoundError, OrderRefusedError, UsageError } from '../../errors.js';
import { countArg } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { PAPER_ACCOUNT_SCHEMA, PAPER_ORDER_SCHEMA, PAPER_POSITION_SCHEMA } from '../output/paper-schemas.js';
import { parsePaperOrder, type PaperOrderArgs } from './paper-args.js';

async function paperOf(deps: CliDeps): Promise<{ paper: PaperApi; client: Awaited<ReturnType<CliDeps['client']>> }> {
  const client = await deps.client();
  const paper = client.capabilities().paper;
  if (!paper) throw new UsageError('paper trading needs a server (msnap serve), not a local store: drop --db');
  return { paper, client };
}

/** Statuses of an order that traded nothing and never will (exit code 12 once the order is written). */
const REFUSED: ReadonlySet<string> = new Set(['rejected', 'expired']);

/** Places one order; a rejected order is written like any other (the caller then exits 12 with its reason). */
export async function runPaperOrder(args: PaperOrderArgs, deps: CliDeps): Promise<PaperOrder> {
  const { paper, client } = await paperOf(deps);
  let marketId: string;
  if ('marketId' in args.target) marketId = args.target.marketId;
  else {
    const { coin, type } = args.target;
    let found: string | undefined;
    for await (const m of client.markets({ coin, marketType: type, status: 'active', limit: 1 })) found ??= m.market_id;
    if (!found) throw new NotFoundError(`no active ${coin} ${type} market at the server's now`);
    marketId = found;
  }
  const priceField = args.action === 'buy' ? 'max_price' : 'min_price';
  const order = await paper.order({
    market_id: marketId,
    side: args.side,
    action: args.action,
    shares: args.shares,
    ...(args.limit !== undefined ? { [priceField]: args.limit } : {}),
  });
  await (await deps.exporter()).record(PAPER_ORDER_SCHEMA, order);
  return order;
}

function orderCommand(ctx: CliContext, action: 'buy' | 'sell'): Command {
  const flag = action === 'buy' ? '--max-price <p>' : '--min-price <p>';
  const walk = action === 'buy' ? 'asks no higher than P' : 'bids no lower than P';
  return new Command(action)
    .description(`${action === 'buy' ? 'Buy' : 'Sell'} paper shares of one side at the server's now, walking the book (fill-and-kill)`)
    .argument('<market...>', 'a market id, or COIN TYPE for its active market; then up|down and the shares')
    .addOption(new Option(flag, `walk only ${walk} (a probability, 0 to 1)`))
    .addHelpText(
      'after',
      `
An order the server rejects (market_closed, no_snapshot, no_position, insufficient_cash, no_fill)
is written like any other, then its reason on stderr and exit code 12.

Examples:
  $ msnap paper ${action} BTC 5m up 10${action === 'buy' ? ' --max-price 0.6' : ''}
  $ msnap paper ${action} btc-updown-5m-1763769600 down 2.5 --json`,
    )
    .action(async (words: string[], flags: { maxPrice?: string; minPrice?: string }, cmd: Command) => {
      const args = parsePaperOrder(action, words, action === 'buy' ? flags.maxPrice : flags.minPrice);
      let order: PaperOrder | undefined;
      await runWithDeps(ctx, cmd, async (deps) => {
        order = await runPaperOrder(args, deps);
      });
      // After the order is written (and an -o file committed): the exit code tells scripts and bots.
      if (order !== undefined && REFUSED.has(order.status)) throw new OrderRefusedError(`order ${order.id} ${order.status}: ${order.reason ?? 'no reason given'}`);
    });
}

/** The `paper` command and its subcommands. */
export function paperCommand(ctx: CliContext): Command {
  const paper = new Command('paper')
    .description("Paper trading on msnap serve: orders filled at the server's now, the account, positions and orders")
    .addHelpText(
      'after',
      `
Orders execute at once on the newest snapshot visible at the server's clock (live, replay or
static), with the backtest's fill, fee and cash model; positions settle when markets resolve.

Examples:
  $ msnap paper buy BTC 5m up 10 --max-price 0.6
  $ msnap paper account
  $ msnap paper positions --json
  $ msnap paper orders --limit 5
  $ msnap paper reset`,
    );
  paper.addCommand(orderCommand(ctx, 'buy'));
  paper.addCommand(orderCommand(ctx, 'sell'));
  paper
    .command('account')
    .description('Cash, realised P&L, fees and the number of open positions (--json: the whole account)')
    .addHelpText('after', '\nExamples:\n  $ msnap paper account\n  $ msnap paper account --json')
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, async (deps) => (await deps.exporter()).record(PAPER_ACCOUNT_SCHEMA, await (await paperOf(deps)).paper.account()));
    });
  paper
    .command('positions')
    .description('Open positions: market, side, shares, average price')
    .addHelpText('after', '\nExamples:\n  $ msnap paper positions\n  $ msnap paper positions --csv')
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, async (deps) => {
        const account = await (await paperOf(deps)).paper.account();
        await (await deps.exporter()).list(PAPER_POSITION_SCHEMA, account.positions);
      });
    });
  paper
    .command('orders')
    .description('Orders placed, newest first')
    .option('--limit <n>', 'how many (default 100, at most 1000)')
    .option('--offset <n>', 'skip this many of the newest')
    .addHelpText('after', '\nExamples:\n  $ msnap paper orders --limit 5\n  $ msnap paper orders --ndjson')
    .action(async (flags: { limit?: string; offset?: string }, cmd: Command) => {
      const limit = flags.limit === undefined ? undefined : countArg(flags.limit, '--limit', 1);
      const offset = flags.offset === undefined ? undefined : countArg(flags.offset, '--offset', 0);
      await runWithDeps(ctx, cmd, async (deps) => {
        const page = await (await paperOf(deps)).paper.orders({ ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) });
        await (await deps.exporter()).list(PAPER_ORDER_SCHEMA, page.orders);
      });
    });
  paper
    .command('reset')
    .description('Start over: the starting cash, no positions, no orders')
    .addHelpText('after', '\nExamples:\n  $ msnap paper reset')
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, async (deps) => (await deps.exporter()).record(PAPER_ACCOUNT_SCHEMA, await (await paperOf(deps)).paper.reset()));
    });
  return paper;
}
