// The Market Snapshot Data Service, started: the store, the limiter, the data clock (wall, live or
// replay), the demo seed, the live world or the recorder (--record), the stream hub, the API and the
// dashboard on one listener.
// `msnap serve` only turns flags into ServiceOptions and calls startService; so does the library's
// startServer (msnap/server). The server, the store backends and the seeder load on the call: the
// CLI builds `serve` at every start, and loading them (better-sqlite3 included) would slow it.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { PaperSettings } from '../paper/paper-settings.js';
import type { SharedLimiter } from '../ratelimit/shared-limiter.js';
import { redactUrl } from '../ratelimit/redis-url.js';
import type { ServerClock } from '../replay/server-clock.js';
import type { RunningServer } from '../server/listen.js';
import type { ProxySettings } from '../server/proxy.js';
import type { ResponseLimits } from '../server/response-writer.js';
import { isPostgresUrl, storeName } from '../store/db-path.js';
import { openStore, type OpenedStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import type { StreamLimits } from '../stream/stream-budget.js';
import type { StreamHub } from '../stream/stream-hub.js';
import { VERSION } from '../version.js';
import { prepareLive, type LiveRun } from './live-run.js';
import { prepareRecord, type RecordRun, type RecordSettings } from './record-run.js';
import { startReplayClock, type ReplayFlags } from './replay-clock.js';
import { storeDeps } from './store-deps.js';
import { explainStoreError, throughStaging } from './store-use.js';
import { prepareStream } from './stream.js';

/** What the service runs on and how (the checked flags of `msnap serve`). */
export interface ServiceOptions {
  /** An SQLite file, or a postgres:// URL (several instances may share it). */
  db: string;
  /** A redis:// URL: the rate limits every instance on it shares; undefined = in this process. */
  limiter?: string;
  host: string;
  port: number;
  /** Seed an empty store and give the demo accounts a key (serve --demo). */
  demo: boolean;
  /** false with --no-signup: the dashboard takes no sign-ups (`serve accounts` makes accounts). */
  signup: boolean;
  /** Keep the seeded synthetic world running (serve --live; on with --demo unless --no-live). */
  live: boolean;
  /** serve --replay FROM [--speed N] [--until TO]: answer at a replay clock over stored history. */
  replay?: ReplayFlags;
  /** Node's header and whole-request timeouts; undefined keeps the listener's defaults (10 s, 30 s). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Bytes held for slow readers and the stall timeout (MSNAP_RESPONSE_BUDGET_MB, MSNAP_WRITE_STALL_MS); the listener's defaults when absent. */
  responseLimits: Partial<ResponseLimits>;
  /** Bytes held for streams whose clients do not read (MSNAP_STREAM_BUDGET_MB); the stream's defaults when absent. */
  streamLimits: Partial<StreamLimits>;
  /** Dashboard sign-ups one client address may make per day (--signups-per-day). */
  signupsPerDay: number;
  /** --trust-proxy, --public-url and --allowed-hosts (or their MSNAP_* variables). */
  proxy: ProxySettings;
  /** --paper-cash and --paper-fee-rate; the defaults when absent (the library's startServer). */
  paper?: PaperSettings;
  /** serve --record: record these live Polymarket markets into the store (SQLite or PostgreSQL) while serving it. */
  record?: RecordSettings;
}

/** What the service needs from the outside world. */
export interface ServiceDeps {
  /** Epoch ms wall clock (rate limits, Date headers; the data clock starts from it). */
  now: () => number;
  /** One line of the service's log (serve writes it to stderr). */
  log: (line: string) => void;
}

/** A service that listens, until close(). */
export interface StartedService {
  /** The listener (its url: http://HOST:PORT). */
  server: RunningServer;
  /** serve --demo's `demo PLAN key (ACCOUNT): KEY` lines for the keys made now (serve prints them on stdout). */
  demoKeys: string[];
  /** Finish in-flight requests and streams, then close the listener, the store and the limiter. */
  close(): Promise<void>;
}

/** Use to start the service; resolves once it listens, rejects as it cannot (UsageError for a bad store, host or a taken port). */
export async function startService(options: ServiceOptions, deps: ServiceDeps): Promise<StartedService> {
  const { log } = deps;
  const [{ createApp }, { startServer }, { serveDashboard }] = await Promise.all([
    import('../server/app.js'),
    import('../server/listen.js'),
    import('../dashboard/serve-dashboard.js'),
  ]);
  const name = storeName(options.db);
  // A mistyped --db would otherwise be served as a new, empty database without a word.
  const created = !isPostgresUrl(options.db) && !existsSync(options.db);
  const store = await openStore(options.db, { serving: true });
  let limiter: SharedLimiter | undefined;
  let running: RunningServer;
  let demoKeys: string[] = [];
  let live: LiveRun | undefined;
  let stream: StreamHub | undefined;
  let recording: RecordRun | undefined;
  try {
    // A store about to be recorded into starts empty on purpose.
    if (!options.demo && !options.record) {
      const { total } = await store.listMarkets({ limit: 1, offset: 0, window: null, now: deps.now() });
      if (created) {
        log(
          `msnap serve: ${options.db} did not exist: created an empty database (no markets, no keys); fill it with msnap serve seed --db ${options.db} or msnap serve import, or use --demo`,
        );
      } else if (total === 0) {
        log(`msnap serve: ${name} holds no markets; fill it with msnap serve seed or msnap serve import, or use --demo`);
      }
    }
    if (options.limiter !== undefined) limiter = await openLimiter(options.limiter, log);
    if (options.demo) demoKeys = await prepareDemo(store, deps, options.db);
    const direct = store.directBulk();
    if (options.live && direct) live = await prepareLive(direct, deps, options.db);
    if (options.record) recording = await prepareRecord(store, options.record, deps);
    // One limiter for the API and the dashboard's throttles: shared through Redis when given.
    const limits = limiter ?? new (await import('../ratelimit/shared-limiter.js')).LocalLimiter();
    const { clock, view } = await dataClock(options, store, deps, live !== undefined || recording !== undefined);
    const app = createApp({ store: view, limiter: limits, now: deps.now, clock, version: VERSION, log, paper: options.paper });
    stream = await prepareStream(clock, store, live ?? recording, limits, deps.now, log, options.streamLimits);
    const dashboard = serveDashboard(view, app, { now: deps.now, signupOpen: options.signup, signupsPerDay: options.signupsPerDay, limiter: limits, log });
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
  if (store.capabilities().shared || limiter) {
    log(`msnap serve: store ${name}; rate limits ${limiter ? `shared through ${redactUrl(options.limiter!)}` : 'in this process only'}`);
  }
  // A pulled store says where its data came from (in the log: stdout's first line is serve's URL line).
  for (const o of await store.origins()) {
    log(
      `msnap serve: ${o.markets.toLocaleString('en-US')} market${o.markets === 1 ? '' : 's'} pulled from ${o.baseUrl} (${o.dialect}), last ${new Date(o.lastPulledAt).toISOString()}`,
    );
  }
  live?.start();
  recording?.start();
  stream?.start();
  const server = running;
  return {
    server,
    demoKeys,
    close: async () => {
      live?.stop();
      try {
        // The recorder's last batch is written before the store closes.
        await recording?.stop();
        await Promise.all([server.close(), stream?.close()]);
      } finally {
        await store.close();
        await limiter?.close();
      }
    },
  };
}

/** The clock answers are computed at, and the store as seen at it: a replay's view, or the store itself. */
async function dataClock(options: ServiceOptions, store: OpenedStore, deps: ServiceDeps, live: boolean): Promise<{ clock: ServerClock; view: Store }> {
  // Loaded here, not at CLI start: only serve runs a data clock.
  if (!options.replay) {
    const { wallClock } = await import('../replay/server-clock.js');
    return { clock: wallClock(live ? 'live' : 'static', deps.now), view: store };
  }
  const { ReplayView } = await import('../replay/replay-view.js');
  const clock = await startReplayClock(options.replay, store, deps.now, (message) => deps.log(`msnap serve: warning: ${message}`));
  const { until, speed } = clock.read();
  deps.log(`msnap serve: replaying from ${new Date(options.replay.from).toISOString()} at ${speed}x until ${new Date(until!).toISOString()}`);
  return { clock, view: new ReplayView(store, clock.now) };
}

/** The Redis limiter behind --limiter; its outages and recoveries are logged (never the password). */
async function openLimiter(url: string, log: (line: string) => void): Promise<SharedLimiter> {
  const { createRedisLimiter } = await import('../ratelimit/redis-limiter.js');
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

/** The demo seed's size on disk as an SQLite file (15 days of 3 coins), for the note before it is made (test/readme-figures.test.ts measures it). */
const DEMO_DB_MB = 220;

/** Seeds an empty database and gives each demo account a key when it has none; returns the key lines to print. */
async function prepareDemo(store: OpenedStore, deps: ServiceDeps, db: string): Promise<string[]> {
  const [{ seedDatabase }, { ensureDemoKeys }] = await Promise.all([
    import('../store/seed/seed.js'),
    import('../accounts/demo-accounts.js'),
  ]);
  const now = deps.now();
  try {
    const { total } = await store.listMarkets({ limit: 1, offset: 0, window: null, now });
    if (total === 0) {
      // Where it goes and how big, said before the wait: a default ./msnap.db is easy to miss.
      const where = isPostgresUrl(db) ? storeName(db) : path.resolve(db);
      deps.log(`msnap serve: seeding the demo database ${where} (15 days of markets, about ${DEMO_DB_MB} MB; --db FILE puts it elsewhere)...`);
      const started = performance.now();
      const direct = store.directBulk();
      const summary = direct
        ? seedDatabase(direct.bulk, { now })
        : (await throughStaging(db, { ...storeDeps(), writeErr: (text) => deps.log(text.trimEnd()) }, (staging) => seedDatabase(staging.bulk, { now }))).result;
      // Into PostgreSQL the copy is part of the wait: the time given is the whole of it.
      const ms = direct ? summary.ms : performance.now() - started;
      const size = isPostgresUrl(db) ? '' : `; ${db} holds ${Math.round(statSync(db).size / 1e6).toLocaleString('en-US')} MB`;
      deps.log(`msnap serve: seeded ${summary.markets} markets and ${summary.snapshots} snapshots in ${(ms / 1000).toFixed(1)} s${size}`);
    }
    const lines: string[] = [];
    for (const demo of await ensureDemoKeys(store, now)) {
      if (demo.key === undefined) {
        deps.log(`msnap serve: ${demo.account} already has a key (printed when it was made); \`msnap serve keys create --account ${demo.account}\` makes another`);
      } else {
        lines.push(`demo ${demo.plan} key (${demo.account}): ${demo.key}`);
      }
    }
    return lines;
  } catch (err) {
    throw explainStoreError(err, db);
  }
}
