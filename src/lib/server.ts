// `import … from 'msnap/server'`: `msnap serve` in this process, for bots' tests and tools: the same
// service the command starts (src/service: store, limiter, dashboard, draining close), plus the
// `serve seed` and `serve keys create` steps a test needs to fill a store and get a key.
import { parseKeyName } from '../accounts/key-name.js';
import type { MarketType } from '../domain/market.js';
import type { PlanName } from '../domain/plans.js';
import { UsageError } from '../errors.js';
import type { RecordSettings } from '../service/record-run.js';
import { recordPairs, recordUrls } from '../service/record-settings.js';
import { parseReplayFlags, type ReplayFlags } from '../service/replay-clock.js';
import { seedNewStore } from '../service/seed.js';
import { startService } from '../service/start-service.js';
import { storeDeps } from '../service/store-deps.js';
import { usingStore } from '../service/store-use.js';
import { isPostgresUrl } from '../store/db-path.js';
import { DEFAULT_SIGNUPS_PER_DAY } from '../dashboard/signup-default.js';

export * from '../errors.js';
export type { MarketType } from '../domain/market.js';
export type { PlanName } from '../domain/plans.js';

/** What `msnap serve` takes. */
export interface ServeOptions {
  /** An SQLite file (created empty when missing) or a postgres:// URL. */
  store: string;
  /** Default 0: any free port (read it from the result). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A redis:// URL whose rate limits every instance on it shares; default in this process. */
  limiter?: string;
  /** The dashboard takes sign-ups (default true). */
  signup?: boolean;
  /** The server's log lines (what `msnap serve` writes to stderr); default dropped. */
  log?: (line: string) => void;
  /** Epoch ms clock; default the real one. */
  now?: () => number;
  /** Keep a seeded SQLite store's synthetic world running (`serve --live`); excludes `replay`. */
  live?: boolean;
  /** Replay the store's history as if it were now (`serve --replay FROM --speed N --until TO`; docs/bots.md). */
  replay?: ReplayOptions;
  /** Record live Polymarket markets into the store while serving it (`serve --record`; docs/real-data.md); excludes `live` and `replay`. */
  record?: RecordOptions;
}

/** What to record and from where, as `serve --record COIN:TYPE,… [--raw DIR] [--clob-url …]` takes it. */
export interface RecordOptions {
  /** COIN:TYPE pairs, e.g. `['BTC:5m', 'ETH:15m']`. */
  markets: readonly string[];
  /** Also keep every frame as received, in hourly gzip JSON-lines files in this directory. */
  raw?: string;
  /** The CLOB market channel; default MSNAP_CLOB_WS_URL, else Polymarket's (as serve). */
  clobUrl?: string;
  /** The RTDS socket for Chainlink prices; default MSNAP_RTDS_URL, else Polymarket's. */
  rtdsUrl?: string;
  /** The Gamma API base; default MSNAP_GAMMA_URL, else Polymarket's. */
  gammaUrl?: string;
}

/** When a replay starts and ends (epoch ms, a Date, or any CLI TIME such as `2d`) and how fast it runs. */
export interface ReplayOptions {
  from: number | Date | string;
  /** Default: the newest snapshot in the store. */
  until?: number | Date | string;
  /** Times wall speed, > 0 (default 1; 60 = a minute of history a second). */
  speed?: number;
}

/** A running server. */
export interface RunningService {
  /** http://HOST:PORT, the base URL for createClient. */
  url: string;
  port: number;
  /** Finish in-flight requests, then close the listener, the store and the limiter. */
  close(): Promise<void>;
}

/** Use to run `msnap serve` in-process; resolves once it listens, rejects as the command fails (UsageError for bad options or a taken port). */
export async function startServer(options: ServeOptions): Promise<RunningService> {
  const port = options.port ?? 0;
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new UsageError(`port must be an integer from 0 to 65535, got ${port}`);
  const now = options.now ?? (() => Date.now());
  const replay = replayFlags(options, now());
  const record = recordSettings(options);
  const service = await startService(
    {
      db: options.store,
      ...(options.limiter !== undefined ? { limiter: options.limiter } : {}),
      host: options.host ?? '127.0.0.1',
      port,
      demo: false,
      signup: options.signup ?? true,
      live: options.live ?? false,
      ...(replay ? { replay } : {}),
      ...(record ? { record } : {}),
      // serve's defaults: no proxy trusted, the listener's response budget, the dashboard's sign-up cap.
      proxy: { trusted: [] },
      responseLimits: {},
      streamLimits: {},
      signupsPerDay: DEFAULT_SIGNUPS_PER_DAY,
    },
    { now, log: options.log ?? (() => {}) },
  );
  return { url: service.server.url, port: service.server.port, close: () => service.close() };
}

/** serve --record's settings from `record`, checked as serve checks its flags (UsageError). */
function recordSettings(options: ServeOptions): RecordSettings | undefined {
  const r = options.record;
  if (!r) return undefined;
  if (options.live === true || options.replay) throw new UsageError('record serves the real markets it records: it goes with neither live nor replay');
  if (!Array.isArray(r.markets) || r.markets.length === 0) throw new UsageError("record.markets takes COIN:TYPE pairs, like ['BTC:5m', 'ETH:15m']");
  const pairs = recordPairs(r.markets, 'record.markets');
  return { pairs, ...recordUrls(r, process.env), ...(r.raw !== undefined ? { raw: r.raw } : {}) };
}

/** The replay flags `serve` would parse from --replay/--speed/--until, checked the same way (UsageError). */
function replayFlags(options: ServeOptions, now: number): ReplayFlags | undefined {
  if (options.live === true && isPostgresUrl(options.store)) throw new UsageError('live runs the synthetic world over an SQLite file; it is not available with a PostgreSQL store');
  if (!options.replay) return undefined;
  const { from, until, speed } = options.replay;
  if (speed !== undefined && !(Number.isFinite(speed) && speed > 0)) throw new UsageError(`replay.speed must be a number > 0, got ${speed}`);
  return parseReplayFlags(
    { replay: timeText(from), ...(until !== undefined ? { until: timeText(until) } : {}), ...(speed !== undefined ? { speed: String(speed) } : {}), live: options.live ?? false },
    now,
  );
}

/** A TIME as the CLI spells it: epoch ms as its 13 digits, a Date as ISO 8601. */
function timeText(t: number | Date | string): string {
  if (t instanceof Date) return t.toISOString();
  if (typeof t === 'number') return Number.isSafeInteger(t) && t >= 0 ? new Date(t).toISOString() : String(t);
  return t;
}

/** What `serve seed` takes: a small world by default (1 day, the newest 5m market of each coin full). */
export interface SeedOptions {
  days?: number;
  /** The random seed: a market's data depends only on it and the market. */
  seed?: number;
  /** Newest markets per type that get full 8/s snapshots (a type not named: 5m 1, others 0). */
  full?: Partial<Record<MarketType, number>>;
  /** Snapshots this recent also get orderbooks (default 10). */
  orderbookMinutes?: number;
  now?: () => number;
}

/** Use to fill a new store (SQLite file or postgres:// URL) with deterministic synthetic markets; returns the counts. */
export async function seedStore(store: string, options: SeedOptions = {}): Promise<{ markets: number; snapshots: number }> {
  const { summary } = await seedNewStore(
    {
      db: store,
      days: options.days ?? 1,
      seed: options.seed ?? 1,
      full: { '5m': 1, '15m': 0, '1hr': 0, '4hr': 0, '24hr': 0, ...options.full },
      orderbookMs: (options.orderbookMinutes ?? 10) * 60_000,
    },
    { ...storeDeps(), now: options.now ?? (() => Date.now()), writeErr: () => {} },
  );
  return { markets: summary.markets, snapshots: summary.snapshots };
}

/** Use to make an API key in a store (`serve keys create`): the account is created on first use. */
export async function createKey(store: string, options: { account: string; plan?: PlanName; trial?: boolean; name?: string; now?: () => number }): Promise<string> {
  const { createApiKey } = await import('../accounts/create-key.js');
  const name = parseKeyName(options.name);
  const keyOptions = { account: options.account, ...(options.plan ? { plan: options.plan } : {}), trial: options.trial ?? false, name };
  const created = await usingStore(storeDeps().openStore(store), store, (s) => createApiKey(s, { ...keyOptions, now: (options.now ?? Date.now)() }));
  return created.key;
}
