// A CLI context with streams tests can read and a fake of the client core, so command tests
// run the real parsing, deps and exporters without a network.
import { pageOf } from '../../client/pages/row-page.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { AtResult, Limits, MarketsListingQuery, MsnapApi, SnapshotsStreamQuery, WindowEnd } from '../../client/types.js';
import type { Market, Snapshot } from '../../domain/market.js';
import { marketId, MARKET_DURATION_MS, type Coin, type MarketType } from '../../domain/market.js';
import { NotFoundError } from '../../errors.js';
import type { CliContext } from '../context.js';
import type { Connection } from '../connection.js';
import { runWithGlobals, type CliDeps, type ClientFactory } from '../deps.js';
import type { GlobalOptions } from '../global-options.js';

/** A writable that keeps what was written, with a settable isTTY. */
export type Capture = Writable & { isTTY?: boolean; text: () => string };

/** Use for a fake stdout/stderr. */
export function capture(isTTY = false): Capture {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Capture;
  w.isTTY = isTTY;
  w.text = () => chunks.join('');
  return w;
}

/** A context over captured streams, a fixed clock and a fresh config dir. */
export function fakeContext(opts: { stdoutTTY?: boolean; stdin?: string; env?: NodeJS.ProcessEnv; now?: number } = {}) {
  const stdout = capture(opts.stdoutTTY ?? false);
  const stderr = capture(false);
  const configDir = mkdtempSync(join(tmpdir(), 'msnap-cli-'));
  const ctx: CliContext = {
    stdout,
    stderr,
    stdin: Readable.from(opts.stdin === undefined ? [] : [opts.stdin]),
    env: { MSNAP_CONFIG_DIR: configDir, ...opts.env },
    now: () => opts.now ?? Date.UTC(2025, 10, 22, 12),
    sleep: async () => {},
    pid: 777,
  };
  return { ctx, stdout, stderr, configDir };
}

/** A market of `coin`/`type` starting at `start`, with `count` snapshots. */
export function market(coin: Coin, type: MarketType, start: number, count: number): Market {
  const id = marketId(coin, type, start);
  return {
    market_id: id,
    slug: id,
    coin,
    market_type: type,
    status: 'resolved',
    start_time: start,
    end_time: start + MARKET_DURATION_MS[type],
    price_start: 100,
    price_end: 101,
    winner: 'Up',
    snapshot_count: count,
  };
}

/** `count` snapshots of a market, 125 ms apart from its start. */
export function snapshotsOf(m: Market): Snapshot[] {
  return Array.from({ length: m.snapshot_count }, (_, i) => ({
    id: i + 1,
    market_id: m.market_id,
    time: m.start_time + i * 125,
    price: 100 + i,
    price_up: 0.5,
    price_down: 0.5,
  }));
}

/** Every call the fake client saw. */
export interface FakeCalls {
  markets: MarketsListingQuery[];
  snapshots: { id: string; q: SnapshotsStreamQuery }[];
  at: { id: string; ts: number }[];
  connections: Connection[];
  closed: number;
}

/** A client over in-memory markets (kept newest first, as the service lists them). */
export function fakeClient(
  markets: Market[],
  extra: { limits?: Limits; warnOnMarkets?: string; windowEnd?: WindowEnd } = {},
): { factory: ClientFactory; calls: FakeCalls } {
  const calls: FakeCalls = { markets: [], snapshots: [], at: [], connections: [], closed: 0 };
  const sorted = [...markets].sort((a, b) => b.start_time - a.start_time);
  const factory: ClientFactory = (conn, hooks) => {
    calls.connections.push(conn);
    const client: MsnapApi = {
      capabilities: () => ({}),
      async health() {
        return { status: 'ok', time: 1763769600000, version: '9.9.9', rttMs: 1.234 };
      },
      async limits() {
        if (!extra.limits) throw new Error('no limits');
        return extra.limits;
      },
      async *markets(q) {
        calls.markets.push(q);
        if (extra.warnOnMarkets) hooks.onWarning(extra.warnOnMarkets);
        const rows = sorted.filter(
          (m) =>
            (!q.coin || m.coin === q.coin) &&
            (!q.marketType || m.market_type === q.marketType) &&
            (q.startTime === undefined || m.start_time >= q.startTime) &&
            (q.endTime === undefined || m.start_time < q.endTime),
        );
        const from = q.offset ?? 0;
        const max = q.all ? Infinity : (q.max ?? 100);
        for (const m of rows.slice(from, from + max)) yield m;
        // A listing of everything that the service cut at the plan's data window.
        if (q.all && extra.windowEnd) q.onWindowEnd?.(extra.windowEnd);
      },
      async market(id) {
        const m = sorted.find((x) => x.market_id === id);
        if (!m) throw new NotFoundError(`market ${id} not found`);
        return m;
      },
      async *snapshotPages(id, q) {
        calls.snapshots.push({ id, q });
        const m = sorted.find((x) => x.market_id === id);
        if (!m) throw new NotFoundError(`market ${id} not found`);
        const rows = snapshotsOf(m).filter(
          (s) => (q.from === undefined || s.time >= q.from) && (q.to === undefined || s.time < q.to),
        );
        q.onPage?.({ page: 1, rows: rows.length, total: rows.length });
        if (rows.length > 0) yield pageOf(rows);
      },
      async at(id, ts): Promise<AtResult> {
        calls.at.push({ id, ts });
        const m = sorted.find((x) => x.market_id === id);
        if (!m) throw new NotFoundError(`market ${id} not found`);
        const snap = snapshotsOf(m)[0]!;
        return { market_id: id, ts, delta_ms: snap.time - ts, snapshot: snap };
      },
      async close() {
        calls.closed += 1;
      },
    };
    return client;
  };
  return { factory, calls };
}

/** Run a command body the way runWithDeps does, with the fake client and the given global flags. */
export async function runFake(
  ctx: CliContext,
  globals: GlobalOptions,
  factory: ClientFactory,
  body: (deps: CliDeps) => Promise<void>,
): Promise<void> {
  await runWithGlobals(ctx, globals, body, factory);
}
