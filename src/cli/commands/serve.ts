// `msnap serve`: the Market Snapshot Data Service over a local SQLite file. The command only binds
// and checks flags; `runServe` does the work with injected dependencies so tests can drive it.
// The server, the store and the seeder are imported by `runServe` itself: every client command
// builds this command too, and loading them (better-sqlite3 included) would add ~0.1 s to its startup.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import type { RunningServer } from '../../server/listen.js';
import { DEFAULT_DB_PATH_HELP, isPostgresUrl, storeName } from '../../store/db-path.js';
import { parseServeFlags, type ServeFlags, type ServeOptions } from './serve-flags.js';

export { parseServeFlags, type ServeOptions } from './serve-flags.js';
import { VERSION } from '../../version.js';
import type { CliContext } from '../context.js';
import { untilStopSignal } from '../stop-signals.js';
import { serveImportCommand } from './serve-import.js';
import { serveAccountsCommand } from './serve-accounts.js';
import { serveKeysCommand } from './serve-keys.js';
import { prepareLive, type LiveRun } from './serve-live.js';
import { storeDeps } from '../store-deps.js';
import { startReplayClock } from './serve-replay.js';
import { prepareStream } from './serve-stream.js';
import type { ServerClock } from '../../replay/server-clock.js';
import type { Store } from '../../store/store.js';
import type { StreamHub } from '../../stream/stream-hub.js';
import { serveCompactBooksCommand } from './serve-compact-books.js';
import { serveSeedCommand } from './serve-seed.js';
import { explainStoreError, isSqlite, openAnyStore, throughStaging, type ServeStore } from './serve-store.js';
import type { SharedLimiter } from '../../ratelimit/shared-limiter.js';
import { DEFAULT_SIGNUPS_PER_DAY } from '../../dashboard/signup-default.js';
import { redactUrl } from '../../ratelimit/redis-url.js';

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
    .option('--paper-fee-rate <rate>', "paper trading: one taker fee rate for every paper fill (default: each market's fee schedule, as the backtest charges)")
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
With --live or --replay, GET /v1/stream (a WebSocket) pushes each snapshot as it becomes visible.
Paper trading (POST /v1/paper/orders, GET /v1/paper/account, docs/bots.md): one account per API
key, kept in the store, filled on the newest snapshot at the server's clock as the backtest fills.
A store filled by msnap pull says on stderr where its markets came from.

Examples:
  $ msnap serve --demo                     # seed ./msnap.db if empty, print demo keys, serve live on :8787
  $ msnap serve --db data.db --live        # a seeded database, kept running
  $ msnap serve --demo --no-live           # the demo data frozen as stored
  $ msnap serve --db data.db --replay 2d --speed 60   # replay from two days ago, a minute a second
  $ msnap serve --db data.db --port 0      # any free port; the URL is printed
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
export async function runServe(options: ServeOptions, deps: ServeDeps): Promise<void> {
  const { ctx } = deps;
  const [{ createApp }, { startServer }, { serveDashboard }] = await Promise.all([
    import('../../server/app.js'),
    import('../../server/listen.js'),
    import('../../dashboard/serve-dashboard.js'),
  ]);
  const name = storeName(options.db);
  // A mistyped --db would otherwise be served as a new, empty database without a word.
  const created = !isPostgresUrl(options.db) && !existsSync(options.db);
  const store = await openAnyStore(options.db, { serving: true });
  const log = (line: string) => ctx.stderr.write(`${line}\n`);
  let limiter: SharedLimiter | undefined;
  let running: RunningServer;
  let demoLines: string[] = [];
  let live: LiveRun | undefined;
  let stream: StreamHub | undefined;
  try {
    if (!options.demo) {
      const { total } = await store.listMarkets({ limit: 1, offset: 0, window: null, now: ctx.now() });
      if (created) {
        ctx.stderr.write(
          `msnap serve: ${options.db} did not exist: created an empty database (no markets, no keys); fill it with msnap serve seed --db ${options.db} or msnap serve import, or use --demo\n`,
        );
      } else if (total === 0) {
        ctx.stderr.write(`msnap serve: ${name} holds no markets; fill it with msnap serve seed or msnap serve import, or use --demo\n`);
      }
    }
    if (options.limiter !== undefined) limiter = await openLimiter(options.limiter, log);
    if (options.demo) demoLines = await prepareDemo(store, ctx, options.db);
    if (options.live && isSqlite(store)) live = await prepareLive(store, ctx, options.db);
    // One limiter for the API and the dashboard's throttles: shared through Redis when given.
    const limits = limiter ?? new (await import('../../ratelimit/shared-limiter.js')).LocalLimiter();
    const { clock, view } = await dataClock(options, store, ctx, live !== undefined);
    const app = createApp({ store: view, limiter: limits, now: ctx.now, clock, version: VERSION, log, paper: options.paper });
    stream = await prepareStream(clock, store, live, limits, ctx.now, log, options.streamLimits);
    const dashboard = serveDashboard(view, app, { now: ctx.now, signupOpen: options.signup, signupsPerDay: options.signupsPerDay, limiter: limits, log });
    running = await startServer({
      app,
      dashboard,
      host: options.host,
      port: options.port,
      headersTimeoutMs: options.headersTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs,
      responseLimits: options.responseLimits,
      proxy: options.proxy,
      upgrade: stream?.upgrade,
    });
  } catch (err) {
    await store.close();
    await limiter?.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${options.port} is already in use on ${options.host}`, 'pick another with --port (0 = any free port)');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${options.host}: not an address of this machine`);
    if (code === 'EACCES') throw new UsageError(`not allowed to listen on port ${options.port}`, 'use a port above 1023');
    throw err;
  }
  ctx.stdout.write(`msnap serve listening on ${running.url}\n`);
  ctx.stdout.write(`dashboard (sign up, keys, markets): ${running.url}/ in a browser\n`);
  for (const line of demoLines) ctx.stdout.write(`${line}\n`);
  if (!isSqlite(store) || limiter) {
    ctx.stderr.write(`msnap serve: store ${name}; rate limits ${limiter ? `shared through ${redactUrl(options.limiter!)}` : 'in this process only'}\n`);
  }
  // A pulled store says where its data came from (stderr: stdout's first line is the URL line).
  for (const o of isSqlite(store) ? store.origins() : []) {
    ctx.stderr.write(
      `msnap serve: ${o.markets.toLocaleString('en-US')} market${o.markets === 1 ? '' : 's'} pulled from ${o.baseUrl} (${o.dialect}), last ${new Date(o.lastPulledAt).toISOString()}\n`,
    );
  }
  live?.start();
  stream?.start();
  deps.onListening?.(running);
  const signal = await deps.waitForStop();
  live?.stop();
  ctx.stderr.write(`msnap serve: ${signal}, finishing in-flight requests\n`);
  try {
    await Promise.all([running.close(), stream?.close()]);
  } finally {
    await store.close();
    await limiter?.close();
  }
}

/** The clock answers are computed at, and the store as seen at it: a replay's view, or the store itself. */
async function dataClock(options: ServeOptions, store: ServeStore, ctx: CliContext, live: boolean): Promise<{ clock: ServerClock; view: Store }> {
  // Loaded here, not at CLI start: only serve runs a data clock.
  if (!options.replay) {
    const { wallClock } = await import('../../replay/server-clock.js');
    return { clock: wallClock(live ? 'live' : 'static', ctx.now), view: store };
  }
  const { ReplayView } = await import('../../replay/replay-view.js');
  const clock = await startReplayClock(options.replay, store, ctx.now);
  const { until, speed } = clock.read();
  ctx.stderr.write(`msnap serve: replaying from ${new Date(options.replay.from).toISOString()} at ${speed}x until ${new Date(until!).toISOString()}\n`);
  return { clock, view: new ReplayView(store, clock.now) };
}

/** The Redis limiter behind --limiter; its outages and recoveries are logged (never the password). */
async function openLimiter(url: string, log: (line: string) => void): Promise<SharedLimiter> {
  const { createRedisLimiter } = await import('../../ratelimit/redis-limiter.js');
  // The first connection is a normal start, not a recovery: only a change after it is news.
  let connected = false;
  return createRedisLimiter(url, {
    onHealthChange: (healthy, reason) => {
      const first = healthy && !connected;
      connected ||= healthy;
      if (!first) log(`msnap serve: rate limiter ${healthy ? 'reachable again' : `unreachable (${reason}); refusing requests with 503`}`);
    },
  });
}

/** The demo seed's size on disk as an SQLite file (15 days of 3 coins), for the note before it is made. */
const DEMO_DB_MB = 270;

/** Seeds an empty database and gives each demo account a key when it has none; returns the lines to print. */
async function prepareDemo(store: ServeStore, ctx: CliContext, db: string): Promise<string[]> {
  const [{ seedDatabase }, { ensureDemoKeys }] = await Promise.all([
    import('../../store/seed/seed.js'),
    import('../../accounts/demo-accounts.js'),
  ]);
  const now = ctx.now();
  try {
    const { total } = await store.listMarkets({ limit: 1, offset: 0, window: null, now });
    if (total === 0) {
      // Where it goes and how big, said before the wait: a default ./msnap.db is easy to miss.
      const where = isPostgresUrl(db) ? storeName(db) : path.resolve(db);
      ctx.stderr.write(`msnap serve: seeding the demo database ${where} (15 days of markets, about ${DEMO_DB_MB} MB; --db FILE puts it elsewhere)...\n`);
      const started = performance.now();
      const summary = isSqlite(store)
        ? seedDatabase(store.bulk, { now })
        : (await throughStaging(db, { ...storeDeps(), writeErr: (text) => void ctx.stderr.write(text) }, (staging) => seedDatabase(staging.bulk, { now }))).result;
      // Into PostgreSQL the copy is part of the wait: the time given is the whole of it.
      const ms = isSqlite(store) ? summary.ms : performance.now() - started;
      const size = isPostgresUrl(db) ? '' : `; ${db} holds ${Math.round(statSync(db).size / 1e6).toLocaleString('en-US')} MB`;
      ctx.stderr.write(`msnap serve: seeded ${summary.markets} markets and ${summary.snapshots} snapshots in ${(ms / 1000).toFixed(1)} s${size}\n`);
    }
    const lines: string[] = [];
    for (const demo of await ensureDemoKeys(store, now)) {
      if (demo.key === undefined) {
        ctx.stderr.write(
          `msnap serve: ${demo.account} already has a key (printed when it was made); \`msnap serve keys create --account ${demo.account}\` makes another\n`,
        );
      } else {
        lines.push(`demo ${demo.plan} key (${demo.account}): ${demo.key}`);
      }
    }
    return lines;
  } catch (err) {
    throw explainStoreError(err, db);
  }
}
