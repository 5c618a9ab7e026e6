// `msnap serve seed`: fills a database with deterministic synthetic markets and snapshots.
import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { MARKET_TYPES, parseMarketType, type MarketType } from '../../domain/market.js';
// Only the defaults (for --help) at load time; the seeder itself is imported by seedNewStore.
import type { SeedSummary } from '../../store/seed/seed.js';
import { DEFAULT_FULL_MARKETS } from '../../store/seed/seed-defaults.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath, storeName } from '../../store/db-path.js';
import { seedNewStore, type SeedCommandOptions } from '../../service/seed.js';
import type { CliContext } from '../context.js';
import { boundedIntArg } from '../../domain/arguments.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';

/** Use to parse --full: `5m=72,24hr=2` (types not named keep their default). */
function parseFullSpec(value: string): Partial<Record<MarketType, number>> {
  const out: Partial<Record<MarketType, number>> = {};
  for (const part of value.split(',')) {
    const [rawType, rawCount] = part.split('=');
    const type = rawType === undefined ? undefined : parseMarketType(rawType.trim());
    if (!type || rawCount === undefined) {
      throw new UsageError(`--full takes TYPE=N pairs such as 5m=72,24hr=2 (types: ${MARKET_TYPES.join(', ')}); got "${value.slice(0, 40)}"`);
    }
    out[type] = boundedIntArg(`--full ${type}`, rawCount, 0, 100_000);
  }
  return out;
}

/** Seeds `opts.db` (which must hold no markets yet) and writes a summary to stdout. */
export async function runSeed(opts: SeedCommandOptions, deps: CliDeps): Promise<SeedSummary> {
  const { summary, ms, rowsPerSec } = await seedNewStore(opts, deps);
  const fmt = (n: number) => n.toLocaleString('en-US');
  deps.writeOut(
    `seeded ${storeName(opts.db)}: ${fmt(summary.markets)} markets (${fmt(summary.fullMarkets)} with full snapshots), ` +
      `${fmt(summary.snapshots)} snapshots, ${fmt(summary.orderbooks)} orderbooks in ${(ms / 1000).toFixed(1)} s ` +
      `(${fmt(rowsPerSec)} rows/s)\n`,
  );
  return summary;
}

/** Raw flag values of `serve seed` as commander hands them over. */
interface SeedFlags {
  db?: string;
  days: string;
  seed: string;
  full?: string;
  orderbookMinutes?: string;
  orderbookDays?: string;
}

/** Use to check the flags of `serve seed`; throws UsageError naming the first bad one. */
export function parseSeedFlags(raw: SeedFlags, env: NodeJS.ProcessEnv): SeedCommandOptions {
  return {
    db: resolveDbPath(raw.db, env),
    days: boundedIntArg('--days', raw.days, 1, 3650),
    seed: boundedIntArg('--seed', raw.seed, 0, 2 ** 32 - 1),
    full: raw.full === undefined ? {} : parseFullSpec(raw.full),
    orderbookMs: orderbookWindowMs(raw),
  };
}

/** The orderbook window of the seed: --orderbook-days or --orderbook-minutes (not both), default 10 minutes. */
function orderbookWindowMs(raw: SeedFlags): number {
  if (raw.orderbookDays !== undefined && raw.orderbookMinutes !== undefined) {
    throw new UsageError('--orderbook-days and --orderbook-minutes both set the orderbook window; give one');
  }
  if (raw.orderbookDays !== undefined) return boundedIntArg('--orderbook-days', raw.orderbookDays, 0, 3650) * 86_400_000;
  return boundedIntArg('--orderbook-minutes', raw.orderbookMinutes ?? '10', 0, 7 * 24 * 60) * 60_000;
}

/** The `serve seed` subcommand. */
export function serveSeedCommand(ctx: CliContext): Command {
  const defaults = MARKET_TYPES.map((t) => `${t}=${DEFAULT_FULL_MARKETS[t]}`).join(',');
  return new Command('seed')
    .description('Fill a new database with deterministic synthetic markets and snapshots')
    .option('--db <file|url>', `SQLite database file (default: ${DEFAULT_DB_PATH_HELP})`)
    .option('--days <n>', 'days of markets to create, back from now', '15')
    .option('--seed <n>', 'random seed: the data of a market depends only on the seed and the market', '1')
    .option('--full <spec>', `newest markets per coin and type that get full 8/s snapshots (default ${defaults})`)
    .option('--orderbook-minutes <n>', 'snapshots this recent also get 8-level orderbooks (default 10)')
    .option('--orderbook-days <n>', 'as --orderbook-minutes, in days: as many as --days gives books for the whole seeded history')
    .addHelpText(
      'after',
      `
Markets of every coin and type start on multiples of their length (UTC) from --days ago up to
the one active now. Only the newest markets (--full) get snapshots; older ones carry
price_start, price_end and winner with snapshot_count 0. The default makes about 5.5M snapshots.

Examples:
  $ msnap serve seed --db data.db
  $ msnap serve seed --db small.db --days 1 --full 5m=3,15m=1,1hr=1,4hr=0,24hr=0
  $ msnap serve seed --db big.db --days 15 --full 24hr=10      # ~20M snapshots for benchmarks
  $ msnap serve seed --db depth.db --days 2 --orderbook-days 2  # every snapshot with 8-level books
  $ msnap serve seed --db postgres://msnap@db.internal/msnap    # a PostgreSQL store (COPY, one transaction)`,
    )
    .action(async (raw: SeedFlags, cmd: Command) => {
      const opts = parseSeedFlags(raw, ctx.env);
      await runAdminWithDeps(ctx, cmd, async (deps) => void (await runSeed(opts, deps)));
    });
}
