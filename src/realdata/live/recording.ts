// One `msnap record` run: the two live sockets, Gamma's markets and the store, tied together.
// Markets of the current and next windows are found on Gamma and subscribed on the market
// channel; a flush every tenth of a second writes what arrived (so a tick is stored soon after it
// is due); an ended market is asked of Gamma until it is closed with a winner; a stop (the
// signal) flushes everything received and closes.
import { setTimeout as delay } from 'node:timers/promises';
import { MARKET_DURATION_MS, type Coin, type MarketType } from '../../domain/market.js';
import type { RecordWrites } from '../../store/record-writes.js';
import { StoreUnavailableError } from '../../store/store.js';
import type { SourceGetOptions } from '../source-get.js';
import { MarketWatch } from './market-watch.js';
import type { RawLog } from './raw-log.js';
import type { RealMarket } from '../import/real-market.js';
import { Recorder, type RecorderStats } from './recorder.js';
import { rtdsSubscribe } from './rtds-frames.js';
import { SocketFeed } from './socket-feed.js';

/** Timings of a recording; tests shorten them. Defaults in RECORDING_DEFAULTS. */
export interface RecordingTimings {
  /** Between batches written to the store. */
  flushMs: number;
  /** Ticks are decided this far behind the clock, for frames that arrive late. */
  lagMs: number;
  /** No frame for this long: the connection is dropped and made again. */
  stallMs: number;
  /** Keep-alive PING interval, per source (each source says its own, REALDATA.md §3, §4). */
  clobPingMs: number;
  rtdsPingMs: number;
  /** Between askings of Gamma for the next markets, and for ended markets' winners. */
  gammaPollMs: number;
  resolvePollMs: number;
  /** Between forgettings of the prices no market needs any more. */
  pruneMs: number;
  /** Reconnect backoff: full jitter, doubling from base up to cap. */
  backoff: { baseMs: number; capMs: number };
  /** The store unreachable (PostgreSQL restarting): a batch is tried again this often, with every frame held, ... */
  storeRetryMs: number;
  /** ... until it has been unreachable this long; then the run ends with StoreUnavailableError. */
  storeOutageMs: number;
}

export const RECORDING_DEFAULTS: RecordingTimings = {
  flushMs: 100,
  lagMs: 1000,
  stallMs: 30_000,
  clobPingMs: 10_000,
  rtdsPingMs: 5_000,
  gammaPollMs: 30_000,
  resolvePollMs: 30_000,
  pruneMs: 60_000,
  backoff: { baseMs: 500, capMs: 30_000 },
  storeRetryMs: 1_000,
  storeOutageMs: 300_000,
};

/** What a recording is given. */
export interface RecordingOptions {
  pairs: readonly { coin: Coin; type: MarketType }[];
  clobUrl: string;
  rtdsUrl: string;
  gammaUrl: string;
  now: () => number;
  /** Aborted to stop: the run flushes, closes its sockets and returns. */
  signal: AbortSignal;
  timings?: Partial<RecordingTimings>;
  raw?: RawLog;
  gammaGet?: SourceGetOptions;
  /** Progress and events, one line each (connects, drops, markets found and resolved, bad frames). */
  log: (line: string) => void;
  /** Called after each batch with the counts so far. */
  onStatus?: (s: RecordingStatus) => void;
}

/** The counts after a batch, and the markets being recorded or waiting for a winner. */
export interface RecordingStatus extends RecorderStats {
  recording: number;
  awaitingWinner: number;
  connected: { clob: boolean; rtds: boolean };
}

/** What a recording that could not write its last batches says of them. */
const LOST = 'what was received since the last batch written is not in the store; --raw files keep it';

const MAX_WINDOW_MS = Math.max(...Object.values(MARKET_DURATION_MS));


/** Use to record until `signal` aborts; returns the final counts. */
export async function recordLive(bulk: RecordWrites, o: RecordingOptions): Promise<RecordingStatus> {
  const t = { ...RECORDING_DEFAULTS, ...o.timings };
  const coins = [...new Set(o.pairs.map((p) => p.coin))];
  const recorder = new Recorder(bulk, { lagMs: t.lagMs, now: o.now, onBadFrame: (src, why) => o.log(`${src}: skipped a bad frame: ${why}`) });
  const watch = new MarketWatch({ gammaUrl: o.gammaUrl, pairs: o.pairs, get: { ...o.gammaGet, signal: o.signal } });
  /** Ended markets still without Gamma's winner, by slug (from earlier runs too). */
  const awaiting = new Map<string, { startTime: number }>();
  for (const u of await bulk.realdata.unresolved('chainlink', o.now())) awaiting.set(u.slug, u);

  const subscribed = new Set<string>();
  const clob = new SocketFeed({
    name: 'clob',
    url: o.clobUrl,
    now: o.now,
    subscribe: () => {
      subscribed.clear();
      const tokens = recorder.tokens();
      for (const tk of tokens) subscribed.add(tk);
      return tokens.length ? [JSON.stringify({ assets_ids: tokens, type: 'market', custom_feature_enabled: true })] : [];
    },
    onOpen: (at) => {
      recorder.clobOpen(at);
      o.raw?.write({ t: at, src: 'clob', open: true });
    },
    onFrame: (text, at) => {
      o.raw?.write({ t: at, src: 'clob', frame: text });
      recorder.clobFrame(text, at);
    },
    onDown: (at, reason) => {
      recorder.clobDown(at);
      o.raw?.write({ t: at, src: 'clob', down: reason });
    },
    log: o.log,
    pingMs: t.clobPingMs,
    stallMs: t.stallMs,
    backoff: t.backoff,
  });
  const rtds = new SocketFeed({
    name: 'rtds',
    url: o.rtdsUrl,
    now: o.now,
    subscribe: () => [rtdsSubscribe(coins)],
    onOpen: (at) => o.raw?.write({ t: at, src: 'rtds', open: true }),
    onFrame: (text, at) => {
      o.raw?.write({ t: at, src: 'rtds', frame: text });
      recorder.rtdsFrame(text);
    },
    onDown: (at, reason) => o.raw?.write({ t: at, src: 'rtds', down: reason }),
    log: o.log,
    pingMs: t.rtdsPingMs,
    stallMs: t.stallMs,
    backoff: t.backoff,
  });

  const findMarkets = async (): Promise<void> => {
    for (const m of await watch.due(o.now())) {
      if (!recorder.track(m)) continue;
      o.log(`market ${m.marketId}: recording (${m.slug})`);
      const fresh = [m.tokenUp, m.tokenDown].filter((tk) => !subscribed.has(tk));
      if (fresh.length === 0 || !clob.connected) continue;
      // The channel's first subscription names the type; later ones add assets to it.
      clob.send(JSON.stringify(subscribed.size === 0 ? { assets_ids: fresh, type: 'market', custom_feature_enabled: true } : { operation: 'subscribe', assets_ids: fresh }));
      for (const tk of fresh) subscribed.add(tk);
    }
  };
  const resolve = async (): Promise<void> => {
    for (const slug of awaiting.keys()) {
      const m = await watch.outcome(slug);
      if (!m?.closed || m.winner === null) continue;
      await recorder.settle(m);
      awaiting.delete(slug);
      o.log(`market ${m.marketId}: resolved ${m.winner}`);
    }
  };
  /** Gamma being away is logged and asked again later: the sockets keep recording meanwhile. */
  const guarded = async (what: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      if (o.signal.aborted) return;
      o.log(`gamma: ${what} failed: ${(err as Error).message}`);
    }
  };

  // Prices from before the oldest market still to settle, and from the current windows' starts.
  const earliest = Math.min(o.now() - MAX_WINDOW_MS, ...[...awaiting.values()].map((a) => a.startTime));
  await recorder.restorePrices(coins, earliest - 60_000);
  await guarded('finding markets', findMarkets);
  clob.start();
  rtds.start();
  const status = (): RecordingStatus => ({
    ...recorder.stats,
    gaps: clob.counts.drops,
    recording: recorder.markets().length,
    awaitingWinner: awaiting.size,
    connected: { clob: clob.connected, rtds: rtds.connected },
  });
  let lastGamma = Date.now();
  let lastResolve = 0;
  let lastRawFlush = Date.now();
  let lastPrune = Date.now();
  // Gamma is asked beside the flushes, never in their way.
  let gammaRun: Promise<void> | undefined;
  // A store that cannot be reached (a PostgreSQL restart or failover) loses nothing: a failed batch
  // gives back what it took, so frames pile up in memory and go in with the first batch that commits.
  let storeDownSince: number | undefined;
  let lastStoreTry = 0;
  let gaveUp = false;
  const flushHolding = async (): Promise<RealMarket[] | undefined> => {
    if (storeDownSince !== undefined && Date.now() - lastStoreTry < t.storeRetryMs) return undefined;
    lastStoreTry = Date.now();
    try {
      const ended = await recorder.flush(o.now());
      if (storeDownSince !== undefined) o.log(`store: reachable again after ${((Date.now() - storeDownSince) / 1000).toFixed(1)} s; the frames held are written`);
      storeDownSince = undefined;
      return ended;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      const wall = Date.now();
      if (storeDownSince === undefined) {
        storeDownSince = wall;
        o.log(`store: failed to write (${err.message}); holding the frames and trying again for up to ${Math.round(t.storeOutageMs / 1000)} s`);
      }
      if (wall - storeDownSince >= t.storeOutageMs) {
        gaveUp = true;
        throw new StoreUnavailableError(`${err.message}; stopped after ${Math.round((wall - storeDownSince) / 1000)} s of trying to write (${LOST})`);
      }
      return undefined;
    }
  };
  try {
    while (!o.signal.aborted) {
      await delay(t.flushMs, undefined, { signal: o.signal }).catch(() => undefined);
      if (o.signal.aborted) break;
      const ended = (await flushHolding()) ?? [];
      for (const m of ended) {
        o.log(`market ${m.marketId}: ended`);
        if (m.winner === null) awaiting.set(m.slug, m);
      }
      // Ended markets' tokens leave the channel (the operation is known from third parties [u]).
      const gone = ended.flatMap((m) => [m.tokenUp, m.tokenDown]).filter((tk) => subscribed.delete(tk));
      if (gone.length > 0) clob.send(JSON.stringify({ operation: 'unsubscribe', assets_ids: gone }));
      // Prices older than every market still to decide or settle are never asked again.
      if (Date.now() - lastPrune >= t.pruneMs) {
        lastPrune = Date.now();
        const starts = [...recorder.markets(), ...awaiting.values()].map((m) => m.startTime);
        recorder.prices.dropBefore(Math.min(o.now() - t.lagMs, ...starts) - 60_000);
      }
      if (o.raw && Date.now() - lastRawFlush >= 2000) {
        o.raw.flush();
        lastRawFlush = Date.now();
      }
      const wall = Date.now();
      if (!gammaRun && (wall - lastGamma >= t.gammaPollMs || wall - lastResolve >= t.resolvePollMs)) {
        const askMarkets = wall - lastGamma >= t.gammaPollMs;
        const askWinners = wall - lastResolve >= t.resolvePollMs && awaiting.size > 0;
        if (askMarkets) lastGamma = wall;
        if (wall - lastResolve >= t.resolvePollMs) lastResolve = wall;
        gammaRun = (async () => {
          if (askMarkets) await guarded('finding markets', findMarkets);
          if (askWinners) await guarded('asking for winners', resolve);
        })().finally(() => (gammaRun = undefined));
      }
      o.onStatus?.(status());
    }
  } finally {
    await gammaRun;
    await Promise.all([clob.close(), rtds.close()]);
    try {
      if (!gaveUp) await recorder.flush(o.now(), true);
    } catch (err) {
      throw err instanceof StoreUnavailableError ? new StoreUnavailableError(`${err.message} (${LOST})`) : err;
    } finally {
      await o.raw?.end();
    }
  }
  return status();
}
