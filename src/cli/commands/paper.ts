// `msnap paper`: paper trading on `msnap serve` (docs/bots.md): orders filled against the book at
// the server's now with the backtest's fill, fee and cash model; limit orders resting on the
// server's clock with the backtest's maker fill model, cancelled; the account, its positions and
// orders; reset. The hosted service has no paper trading: it answers with a one-line error.
import { Command, Option } from 'commander';
import type { MsnapApi } from '../../client/types.js';
import type { PaperApi, PaperOrder } from '../../client/paper/paper-types.js';
import { NotFoundError, OrderRefusedError, UsageError } from '../../errors.js';
import { countArg } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { PAPER_ACCOUNT_SCHEMA, PAPER_ORDER_SCHEMA, PAPER_POSITION_SCHEMA } from '../output/schemas/paper-schemas.js';
import { parsePaperOrder, parsePaperPost, type PaperOrderArgs, type PaperPostArgs } from './paper-args.js';

async function paperOf(deps: CliDeps): Promise<{ paper: PaperApi; client: Awaited<ReturnType<CliDeps['client']>> }> {
  const client = await deps.client();
  const paper = client.capabilities().paper;
  if (!paper) throw new UsageError('paper trading needs a server (msnap serve), not a local store: drop --db');
  return { paper, client };
}

/** Statuses of an order that traded nothing and never will (exit code 12 once the order is written). */
const REFUSED: ReadonlySet<string> = new Set(['rejected', 'expired']);

/** Places one order; a rejected order is written like any other (the caller then exits 12 with its reason). */
async function runPaperOrder(args: PaperOrderArgs, deps: CliDeps): Promise<PaperOrder> {
  const { paper, client } = await paperOf(deps);
  const marketId = await marketOf(args.target, client);
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

/** The market an order names: its id, or the active market of COIN TYPE at the server's now. */
async function marketOf(target: PaperOrderArgs['target'], client: MsnapApi): Promise<string> {
  if ('marketId' in target) return target.marketId;
  const { coin, type } = target;
  let found: string | undefined;
  for await (const m of client.markets({ coin, marketType: type, status: 'active', limit: 1 })) found ??= m.market_id;
  if (!found) throw new NotFoundError(`no active ${coin} ${type} market at the server's now`);
  return found;
}

/** Posts one limit order; it is written as the server answered it (`open`, or `rejected`). */
async function runPaperPost(args: PaperPostArgs, deps: CliDeps): Promise<PaperOrder> {
  const { paper, client } = await paperOf(deps);
  const order = await paper.post({
    type: 'limit',
    market_id: await marketOf(args.target, client),
    side: args.side,
    action: args.action,
    shares: args.shares,
    price: args.price,
    ...(args.ttlMs !== undefined ? { ttl_ms: args.ttlMs } : {}),
  });
  await (await deps.exporter()).record(PAPER_ORDER_SCHEMA, order);
  return order;
}

/** Cancels one resting limit order and writes it as cancelled (with what it had filled). */
async function runPaperCancel(id: number, deps: CliDeps): Promise<PaperOrder> {
  const order = await (await paperOf(deps)).paper.cancel(id);
  await (await deps.exporter()).record(PAPER_ORDER_SCHEMA, order);
  return order;
}

/** Runs `run` (which writes the order), then exits 12 when the server refused the order. */
async function refusable(ctx: CliContext, cmd: Command, run: (deps: CliDeps) => Promise<PaperOrder>): Promise<void> {
  let order: PaperOrder | undefined;
  await runWithDeps(ctx, cmd, async (deps) => {
    order = await run(deps);
  });
  // After the order is written (and an -o file committed): the exit code tells scripts and bots.
  if (order !== undefined && REFUSED.has(order.status)) throw new OrderRefusedError(`order ${order.id} ${order.status}: ${order.reason ?? 'no reason given'}`);
}

function postCommand(ctx: CliContext): Command {
  return new Command('post')
    .description("Post a resting (maker, post-only) limit order at the server's now; it fills on later snapshots by the server's maker fill model")
    .argument('<market...>', 'a market id, or COIN TYPE for its active market; then up|down, buy|sell and the shares')
    .addOption(new Option('--price <p>', 'the price it rests at: a buy on the bids, a sell on the asks (> 0 and < 1)'))
    .addOption(new Option('--ttl <duration>', "time to live on the server's clock (500ms, 30s, 5m, 2h, 1d); default: until the market ends"))
    .addHelpText(
      'after',
      `
The order goes live on the newest snapshot at the server's now. Post-only: an order the book would
fill at once (a buy at or above the best ask, a sell at or below the best bid) is rejected
(crosses). A buy holds its cash apart while it rests, a sell its shares. It fills at its price by
serve --paper-maker-fill (cross: when the book trades through it; queue: also as the size ahead of
it at its level is taken), until filled, cancelled (msnap paper cancel), expired (--ttl) or the
market's end. A sell rests for at most the shares held and not promised to another sell. A
rejected order (crosses, market_closed, no_snapshot, insufficient_cash, no_position) is written
like any other, then its reason on stderr and exit code 12.

Examples:
  $ msnap paper post BTC 5m up buy 10 --price 0.45
  $ msnap paper post btc-updown-5m-1763769600 down sell 5 --price 0.6 --ttl 30s --json`,
    )
    .action(async (words: string[], flags: { price?: string; ttl?: string }, cmd: Command) => {
      const args = parsePaperPost(words, flags.price, flags.ttl);
      await refusable(ctx, cmd, (deps) => runPaperPost(args, deps));
    });
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
      await refusable(ctx, cmd, (deps) => runPaperOrder(args, deps));
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
static), with the backtest's fill, fee and cash model; limit orders (post) rest and fill on later
snapshots with the backtest's maker fill model; positions settle when markets resolve.

Examples:
  $ msnap paper buy BTC 5m up 10 --max-price 0.6
  $ msnap paper post BTC 5m up buy 10 --price 0.45 --ttl 5m
  $ msnap paper orders --open
  $ msnap paper cancel 42
  $ msnap paper account
  $ msnap paper positions --json
  $ msnap paper orders --limit 5
  $ msnap paper reset`,
    );
  paper.addCommand(orderCommand(ctx, 'buy'));
  paper.addCommand(orderCommand(ctx, 'sell'));
  paper.addCommand(postCommand(ctx));
  paper
    .command('cancel')
    .description('Cancel a resting limit order: its reserved cash or shares are free again; what it filled stays')
    .argument('<id>', "the order's id (msnap paper orders --open lists them)")
    .addHelpText('after', '\nAn id that is not a resting order of your key: exit code 6 (unknown) or 1 (already closed).\n\nExamples:\n  $ msnap paper cancel 42\n  $ msnap paper cancel 42 --json')
    .action(async (idText: string, _flags: unknown, cmd: Command) => {
      const id = countArg(idText, 'order id', 1);
      await runWithDeps(ctx, cmd, (deps) => runPaperCancel(id, deps).then(() => undefined));
    });
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
    .description('Orders placed, newest first (--open: resting limit orders only)')
    .option('--limit <n>', 'how many (default 100, at most 1000)')
    .option('--offset <n>', 'skip this many of the newest')
    .option('--open', 'only limit orders still resting')
    .addHelpText('after', '\nExamples:\n  $ msnap paper orders --limit 5\n  $ msnap paper orders --open\n  $ msnap paper orders --ndjson')
    .action(async (flags: { limit?: string; offset?: string; open?: boolean }, cmd: Command) => {
      const limit = flags.limit === undefined ? undefined : countArg(flags.limit, '--limit', 1);
      const offset = flags.offset === undefined ? undefined : countArg(flags.offset, '--offset', 0);
      await runWithDeps(ctx, cmd, async (deps) => {
        const page = await (await paperOf(deps)).paper.orders({
          ...(limit !== undefined ? { limit } : {}),
          ...(offset !== undefined ? { offset } : {}),
          ...(flags.open ? { open: true } : {}),
        });
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
