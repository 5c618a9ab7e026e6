// `msnap serve`: the Market Snapshot Data Service over a local SQLite file. The command only binds
// and checks flags; `runServe` starts the service (src/service/start-service.ts) with injected
// dependencies so tests can drive it, prints where it listens and stops it on a signal.
import { Command, Option } from 'commander';
import type { RunningServer } from '../../server/listen.js';
import { DEFAULT_DB_PATH_HELP } from '../../store/db-path.js';
import { startService, type ServiceOptions } from '../../service/start-service.js';
import { parseServeFlags, type ServeFlags } from './serve-flags.js';
import type { CliContext } from '../context.js';
import { untilStopSignal } from '../stop-signals.js';
import { serveImportCommand } from './serve-import.js';
import { serveAccountsCommand } from './serve-accounts.js';
import { serveKeysCommand } from './serve-keys.js';
import { serveCompactBooksCommand } from './serve-compact-books.js';
import { serveSeedCommand } from './serve-seed.js';
import { DEFAULT_SIGNUPS_PER_DAY } from '../../dashboard/signup-default.js';
import { DEFAULT_CLOB_WS_URL, DEFAULT_GAMMA_URL, DEFAULT_RTDS_URL } from '../../service/record-settings.js';

/** What `runServe` needs from the outside world. */
export interface ServeDeps {
  ctx: CliContext;
  /** Resolves with the signal's name when the server should drain and stop. */
  waitForStop: () => Promise<string>;
  /** Called once listening (tests read the URL here). */
  onListening?: (server: RunningServer) => void;
}

/** The `serve` command with its subcommands `seed`, `import`, `keys` and `accounts`. */
export function serveCommand(ctx: CliContext): Command {
  const cmd = new Command('serve')
    .description('Run the Market Snapshot Data Service locally over SQLite')
    .option('--db <file>', `SQLite database file (default: ${DEFAULT_DB_PATH_HELP})`)
    .option('--store <url>', 'a PostgreSQL store, postgres://user@host:5432/db, shared by any number of instances (env MSNAP_DATABASE_URL)')
    .option('--limiter <url>', 'share the rate limits of every instance through Redis, redis://host:6379/0 (env MSNAP_REDIS_URL)')
    .addOption(new Option('--host <host>', 'address to listen on').default('127.0.0.1'))
    .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').default('8787'))
    .option('--demo', 'seed an empty or missing database and print one builder and one pro key', false)
    .option('--no-signup', 'the dashboard at / takes no sign-ups (make accounts with serve accounts)')
    .option('--trust-proxy <addresses>', 'believe X-Forwarded-For/-Proto from these proxy IPs, comma-separated, or "loopback" (env MSNAP_TRUST_PROXY)')
    .option('--public-url <url>', 'the origin browsers use when a proxy rewrites Host, e.g. https://data.example.com (env MSNAP_PUBLIC_URL)')
    .option('--allowed-hosts <names>', 'Host names requests may carry, comma-separated, "*" = any (on loopback also IP addresses and dot-less names such as localhost; env MSNAP_ALLOWED_HOSTS)')
    .option('--signups-per-day <n>', 'dashboard sign-ups one client address may make per day', String(DEFAULT_SIGNUPS_PER_DAY))
    .option('--live', 'keep the seeded markets running: new markets open, active ones get 8 snapshots a second, ended ones resolve (default with --demo)')
    .option('--no-live', 'serve the database as stored, also with --demo')
    .option('--replay <from>', 'replay stored history as if it were now: the clock starts at FROM (a TIME) and nothing after it is visible; excludes --live')
    .option('--speed <n>', 'with --replay: how many times wall speed the clock runs (default 1; 60 = a minute a second)')
    .option('--until <to>', 'with --replay: where the clock stops (a TIME; default the newest snapshot in the store)')
    .option('--paper-cash <usdc>', 'paper trading: the cash a new or reset paper account starts with (default 1000)')
    .option('--record <pairs>', 'record live Polymarket markets into the store while serving it, COIN:TYPE pairs: BTC:5m,ETH:15m (SQLite or PostgreSQL; see msnap record)')
    .addOption(new Option('--clob-url <url>', `with --record: the CLOB market channel (env MSNAP_CLOB_WS_URL; default ${DEFAULT_CLOB_WS_URL})`))
    .addOption(new Option('--rtds-url <url>', `with --record: the RTDS socket for Chainlink prices (env MSNAP_RTDS_URL; default ${DEFAULT_RTDS_URL})`))
    .addOption(new Option('--gamma-url <url>', `with --record: the Gamma API base (env MSNAP_GAMMA_URL; default ${DEFAULT_GAMMA_URL})`))
    .option('--raw <dir>', 'with --record: also keep every frame as received, in hourly gzip JSON-lines files in DIR')
    .option('--paper-fee-rate <rate>', "paper trading: one taker fee rate for every paper fill (default: each market's fee schedule, as the backtest charges)")
    .option('--paper-maker-fill <model>', "paper trading: the fill model of resting limit orders, cross (conservative) or queue (optimistic), as the backtest's --maker-fill (default cross)")
    .addHelpText(
      'after',
      `
The first line on stdout is "msnap serve listening on http://HOST:PORT".
It answers the hosted service's API versions over one database and one limiter:
v1 (/api/v1/..., /v1/...), v2 (/v2/...) and v4 (/v4/...); /health needs no key.
The dashboard (sign up, keys, markets) is at that URL in a browser.
SIGINT/SIGTERM finish in-flight requests, close the database and exit 0.
With --live the synthetic markets of a seeded database go on in real time, continuing the same
seeded paths (a restart fills the pause, at most its last 2 hours of snapshots); imported markets
are never changed.
With --replay FROM the server answers, in every API version and the dashboard, as the store stood
at a clock that starts at FROM and runs --speed times wall speed up to --until; GET /v1/clock
reports it. Date headers and rate limits stay on the wall clock.
With --record BTC:5m,ETH:15m the recorder of msnap record runs inside serve on its store: the
markets appear in every API version as they are recorded; SIGINT/SIGTERM also stop the recorder
after writing everything it received.
With --live, --replay or --record, GET /v1/stream (a WebSocket) pushes each snapshot as it becomes
visible; a store another process records into streams too.
Paper trading (POST /v1/paper/orders, GET /v1/paper/account, docs/bots.md): one account per API
key, kept in the store, filled on the newest snapshot at the server's clock as the backtest fills;
limit orders ("type":"limit") rest and fill on later snapshots by the backtest's maker fill model.
A store filled by msnap pull says on stderr where its markets came from.

Examples:
  $ msnap serve --demo                     # seed ./msnap.db if empty, print demo keys, serve live on :8787
  $ msnap serve --db data.db --live        # a seeded database, kept running
  $ msnap serve --demo --no-live           # the demo data frozen as stored
  $ msnap serve --db data.db --replay 2d --speed 60   # replay from two days ago, a minute a second
  $ msnap serve --db data.db --port 0      # any free port; the URL is printed
  $ msnap serve --db real.db --record BTC:5m,ETH:15m   # record live Polymarket markets and serve them
  $ msnap serve --no-signup                # dashboard for accounts the operator made only
  $ msnap serve accounts password alice --plan pro   # an account that can sign in
  $ msnap serve seed --db data.db --days 15
  $ msnap serve keys create --db data.db --account alice --plan pro
  $ msnap serve --store postgres://msnap@db/msnap --limiter redis://cache:6379 --port 8001   # one of N instances
  $ curl -H "X-API-Key: $KEY" "http://127.0.0.1:8787/api/v1/markets?coin=btc&limit=5"
  $ curl -H "X-API-Key: $KEY" "http://127.0.0.1:8787/v4/markets?coin=btc&limit=5"`,
    )
    .action(async (raw: ServeFlags) => {
      await runServe(parseServeFlags(raw, ctx.env, ctx.now()), { ctx, waitForStop: untilStopSignal });
    });
  cmd.addCommand(serveSeedCommand(ctx));
  cmd.addCommand(serveImportCommand(ctx));
  cmd.addCommand(serveKeysCommand(ctx));
  cmd.addCommand(serveAccountsCommand(ctx));
  cmd.addCommand(serveCompactBooksCommand(ctx));
  // The root program does not use positional options, so `serve seed --db x` hands --db to
  // `serve`; pass it on to whichever subcommand (at any depth) runs and takes --db itself.
  cmd.hook('preSubcommand', (self, sub) => {
    const db = (self.getOptionValue('store') ?? self.getOptionValue('db')) as string | undefined;
    if (db !== undefined) forwardDb(sub, db);
  });
  return cmd;
}

function forwardDb(command: Command, db: string): void {
  if (command.options.some((o) => o.long === '--db') && command.getOptionValue('db') === undefined) {
    command.setOptionValueWithSource('db', db, 'cli');
  }
  for (const sub of command.commands) forwardDb(sub, db);
}

/** Use to run the service until `waitForStop` resolves; then drains and closes the database it opened. */
export async function runServe(options: ServiceOptions, deps: ServeDeps): Promise<void> {
  const { ctx } = deps;
  const service = await startService(options, { now: ctx.now, log: (line) => void ctx.stderr.write(`${line}\n`) });
  const { server } = service;
  ctx.stdout.write(`msnap serve listening on ${server.url}\n`);
  ctx.stdout.write(`dashboard (sign up, keys, markets): ${server.url}/ in a browser\n`);
  for (const line of service.demoKeys) ctx.stdout.write(`${line}\n`);
  deps.onListening?.(server);
  const signal = await deps.waitForStop();
  ctx.stderr.write(`msnap serve: ${signal}, finishing in-flight requests\n`);
  await service.close();
}
