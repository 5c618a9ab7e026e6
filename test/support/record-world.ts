// The world the recorder's end-to-end tests play (test/record-e2e.test.ts, test/record-pg-e2e.test.ts):
// a fake Polymarket (Gamma over HTTP, the CLOB market channel and RTDS over WebSockets) with two
// BTC 5m markets meeting at a boundary, on a fast clock the feed and `msnap record` share (run in
// process through its run function, so the test owns the clock), and the recorder run until a
// condition holds, then stopped as Ctrl-C would.
import { runRecord, type RecordFlags } from '../../src/cli/commands/record.js';
import { runWithGlobals } from '../../src/cli/deps.js';
import { fakeContext } from '../../src/cli/test-support/fake-cli.js';
import type { RecordingStatus } from '../../src/realdata/live/recording.js';
import { startFakePolymarketSockets, type FakePolymarketSockets } from '../../src/realdata/test-support/fake-polymarket-sockets.js';
import { startFakeSources, type FakeSources } from '../../src/realdata/test-support/fake-sources-server.js';
import { FakeMarketFeed } from '../../src/realdata/test-support/fake-market-feed.js';
import type { GammaMarketSpec } from '../../src/realdata/test-support/gamma-fixture.js';
import { FAST_RETRY } from '../../src/realdata/test-support/local-http.js';
import { scenarioMarket } from '../../src/realdata/test-support/pmxt-scenarios.js';

export const SPEED = 25;
export const FIVE_MIN = 300_000;
export const HOUR = 3_600_000;
/** Recorder timings in real ms, but lagMs, which is clock time: 1 s at SPEED, so a frame delivered late by a loaded machine is still on time for its tick (the reference takes every frame at its own time). */
// pruneMs: prices no market needs are forgotten often, so the edge prices checked below prove none needed was.
export const TIMINGS = { flushMs: 40, lagMs: 25_000, stallMs: 800, clobPingMs: 200, rtdsPingMs: 200, gammaPollMs: 150, resolvePollMs: 150, pruneMs: 50, backoff: { baseMs: 40, capMs: 200 } };

/** A clock running `speed` times real time from `from`. */
export function fastClock(from: number, speed = SPEED): () => number {
  const r0 = performance.now();
  return () => Math.floor(from + (performance.now() - r0) * speed);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(20);
  }
}

export interface World {
  boundary: number;
  now: () => number;
  specs: GammaMarketSpec[];
  sources: FakeSources;
  sockets: FakePolymarketSockets;
  feed: FakeMarketFeed;
  flags: (db: string, raw: string) => RecordFlags;
  /** Resolves A once the clock passes its end by `lateMs`, B likewise. */
  resolveLate(lateMs: number): () => void;
}

/** Two BTC 5m markets A and B meeting at a boundary inside an hour of the past; the clock starts a minute before it (room for a slow start). */
export async function world(seed: number, opts: { speed?: number; lead?: number } = {}): Promise<World> {
  const hour = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
  const boundary = hour + 30 * 60_000;
  const now = fastClock(boundary - (opts.lead ?? 60_000), opts.speed);
  const ab = [boundary - FIVE_MIN, boundary].map((start) => ({ ...scenarioMarket(`rec-${seed}-${start}`, start, start + FIVE_MIN), slug: `btc-updown-5m-${start / 1000}` }));
  const specs: GammaMarketSpec[] = ab.map((m) => ({ slug: m.slug, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start: m.start, end: m.end }));
  const sources = await startFakeSources({ gamma: specs });
  const sockets = await startFakePolymarketSockets();
  const feed = new FakeMarketFeed(sockets, now, ab, [{ symbol: 'btc/usd', price: 84_123.45 }], seed);
  const winners = ['Up', 'Down'] as const;
  return {
    boundary,
    now,
    specs,
    sources,
    sockets,
    feed,
    flags: (db, raw) => ({ pairs: [{ coin: 'BTC', type: '5m' }], db, raw, clobUrl: sockets.clobUrl, rtdsUrl: sockets.rtdsUrl, gammaUrl: sources.url, verbose: true }),
    resolveLate: (lateMs) => () =>
      sources.setGamma(specs.map((s, i) => (now() >= s.end + lateMs ? { ...s, state: 'resolved', winner: winners[i] } : s))),
  };
}

/** Runs the recorder until `stopWhen` holds (checked with the clock), then stops it as Ctrl-C would. */
export async function record(w: World, db: string, raw: string, stopWhen: () => boolean | Promise<boolean>, onTick: () => void = () => undefined, timings: Partial<typeof TIMINGS> = TIMINGS) {
  const { ctx, stderr } = fakeContext({ env: {} });
  const stop = new AbortController();
  let status: RecordingStatus | undefined;
  const run = runWithGlobals(ctx, {}, async (deps) => {
    status = await runRecord(w.flags(db, raw), deps, { now: w.now, timings, gammaGet: FAST_RETRY, signal: stop.signal });
  });
  let failed: unknown;
  run.catch((err: unknown) => (failed = err));
  await until(() => {
    if (failed) throw failed as Error;
    onTick();
    return stopWhen();
  }, 60_000);
  stop.abort();
  await run;
  return { status: status!, log: stderr.text() };
}
