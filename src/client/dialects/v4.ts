// v4 (`/v4/...`), the hosted service's current API: `coin` on every call, epoch-ms times with an
// inclusive end, short market types, `has_more`/`next_offset` envelopes and coded errors, all
// mapped back so the facade and the CLI see exactly what v1 gives them.
import { coinPriceKey } from '../../domain/dialect-records.js';
import { COINS, parseMarketId, SHORT_MARKET_TYPES, type Coin, type MarketType } from '../../domain/market.js';
import { toNumber } from '../../domain/numeric-field.js';
import { MsnapError, NotFoundError } from '../../errors.js';
import { asObject, MalformedBodyError, normalizeLimits } from '../normalize.js';
import { rowKeys, type RowKeys } from '../pages/snapshot-page-scan.js';
import { readSnapshotPage } from '../pages/snapshot-page.js';
import type { Query, Transport } from '../transport/transport.js';
import type { Health, Limits } from '../types.js';
import { paceOf, type Dialect } from './dialect.js';
import { v4Envelope } from './list-envelope.js';
import { v4ErrorFor } from './v4-errors.js';
import { lacksSnapshotCount, marketFromV4, snapshotFromV4 } from './v4-records.js';

/** The limits request (`auto` falls back to it as a probe when /v4/health does not answer). */
const V4_PROBE_PATH = '/v4/billing/plan-limits';
/** The public health path, `auto`'s first probe. */
const V4_HEALTH_PATH = '/v4/health';

// The hosted v4 maxima: asking no more keeps the service's clamping warnings for the data window.
const MARKETS_PAGE_MAX = 100;
/** The most snapshots a v4 page holds (what the client asks at most): a dry run plans by it. */
export const V4_SNAPSHOTS_PAGE_MAX = 1000;
// v4 refuses an input time outside these bounds (13-digit epoch ms).
const MIN_MS = 1_000_000_000_000;
const MAX_MS = 9_999_999_999_999;

function msParam(v: number | undefined): number | undefined {
  return v === undefined ? undefined : Math.min(MAX_MS, Math.max(MIN_MS, Math.floor(v)));
}

// msnap's ranges end before `to`; v4's end_time is inclusive.
function endParam(to: number | undefined): number | undefined {
  return to === undefined ? undefined : msParam(to - 1);
}

function pageLimit(asked: number | undefined, max: number): number | undefined {
  return asked === undefined ? undefined : Math.min(asked, max);
}

function get(t: Transport, path: string, coin: Coin, query: Query, signal?: AbortSignal) {
  return t.get(path, { coin: coin.toLowerCase(), ...query }, signal, v4ErrorFor);
}

/**
 * Use for a request about one market: v4 needs its coin, which a msnap market id names; an id
 * that does not is tried with each coin in turn (a market of another coin is a 404).
 */
async function withMarketCoin<T>(id: string, call: (coin: Coin) => Promise<T>): Promise<T> {
  const known = parseMarketId(id)?.coin;
  if (known) return call(known);
  let last: unknown;
  for (const coin of COINS) {
    try {
      return await call(coin);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      last = err;
    }
  }
  throw last;
}

// The names a v4 row's fields may be read fast under: the coin's price (snapshotFromV4 also takes `price`).
const V4_ROW_KEYS = new Map(COINS.map((c): [Coin, RowKeys] => [c, rowKeys([coinPriceKey(c), 'price'])]));

function v4RowKeys(coin: Coin): RowKeys {
  return V4_ROW_KEYS.get(coin)!;
}

function shortType(type: MarketType | undefined): string | undefined {
  return type === undefined ? undefined : SHORT_MARKET_TYPES[type];
}

// plan-limits names its window by v4's short types; the usage comes from its rate-limit headers.
function planLimits(body: unknown, rate: { remaining?: number; reset?: number }): Limits {
  const b = asObject(body, 'plan-limits');
  const rates = asObject(b['rate_limits'], 'plan-limits.rate_limits');
  const burst = toNumber(rates['max_per_second']);
  const perMinute = toNumber(rates['max_per_minute']);
  if (burst === undefined) throw new MalformedBodyError('plan-limits: missing or non-numeric `rate_limits.max_per_second`');
  if (perMinute === undefined && rates['max_per_minute'] !== null) {
    throw new MalformedBodyError('plan-limits: missing or non-numeric `rate_limits.max_per_minute`');
  }
  const w = b['data_window'];
  const cap = (short: string): number => (w !== null && typeof w === 'object' ? toNumber((w as Record<string, unknown>)[short]) : undefined) ?? 0;
  return {
    plan: typeof b['plan_id'] === 'string' ? b['plan_id'] : 'unknown',
    trial: null,
    rate_limit: { requests_per_minute: perMinute ?? null, burst_per_second: burst },
    data_window: w !== null && typeof w === 'object'
      ? { '5m': cap('5m'), '15m': cap('15m'), '1hr': cap('1h'), '4hr': cap('4h'), '24hr': cap('24h') }
      : null,
    api_keys: null,
    usage: rate.remaining !== undefined && rate.reset !== undefined ? { remaining: rate.remaining, reset: rate.reset } : null,
  };
}

/** What the public /v4/health said: the service's health, and msnap serve's page sizes if it is one. */
export interface V4HealthAnswer {
  health: Health;
  /** msnap serve's largest snapshot page per dialect (an msnap extension); undefined from the hosted service. */
  snapshotsPageMax: Partial<Record<string, number>> | undefined;
}

/** Use for `msnap health` and `--api auto`'s probe: one keyless request. */
export async function readV4Health(t: Transport): Promise<V4HealthAnswer> {
  const { body, ms, rate } = await t.getPublic(V4_HEALTH_PATH, v4ErrorFor);
  const b = t.object(body, V4_HEALTH_PATH);
  const max = b['snapshots_page_max'];
  return {
    health: {
      status: typeof b['status'] === 'string' ? b['status'] : 'unknown',
      // The hosted health carries no time: the `Date` header is the server's (1 s resolution).
      time: rate.serverDate ?? 0,
      // An msnap extension; the hosted service sends no version.
      version: typeof b['version'] === 'string' ? b['version'] : 'unknown',
      rttMs: ms,
    },
    snapshotsPageMax: max !== null && typeof max === 'object' ? Object.fromEntries(
      Object.entries(max as Record<string, unknown>).map(([k, v]) => [k, toNumber(v)]).filter((e): e is [string, number] => e[1] !== undefined),
    ) : undefined,
  };
}

/** Use for `--api v4` (and for `auto` when the probe answered). */
export const v4: Dialect = {
  name: 'v4',
  marketsCounted: false,
  countless: lacksSnapshotCount,

  listCoins: (coin) => (coin ? [coin] : [...COINS]),

  async health(t) {
    return (await readV4Health(t)).health;
  },

  async limits(t) {
    const { body, rate } = await get(t, V4_PROBE_PATH, 'BTC', {});
    const limits = t.parse(() => planLimits(body, rate), V4_PROBE_PATH);
    return { limits, pace: paceOf(limits) };
  },

  // v4 has no trial or key count: a service that still answers v1's /limits supplies them.
  async completeLimits(t, base) {
    try {
      const { body } = await t.get('/api/v1/limits', {});
      const v1 = t.parse(() => normalizeLimits(body), '/api/v1/limits');
      return { ...base, trial: v1.trial, api_keys: v1.api_keys };
    } catch (err) {
      if (err instanceof MsnapError) return base;
      throw err;
    }
  },

  async marketsPage(t, q) {
    const path = '/v4/markets';
    if (!q.coin) throw new Error('v4 lists one coin at a time');
    const coin = q.coin;
    const { body } = await get(t, path, coin, {
      market_type: shortType(q.marketType),
      resolved: q.status === undefined ? undefined : q.status === 'resolved',
      limit: pageLimit(q.limit, MARKETS_PAGE_MAX),
      offset: q.offset,
      start_time: msParam(q.startTime),
      end_time: endParam(q.endTime),
    });
    const b = t.object(body, path);
    const now = t.now();
    const raw = Array.isArray(b['markets']) ? (b['markets'] as unknown[]) : [];
    const markets = t.parse(() => raw.map((m) => marketFromV4(m, coin, now)), path);
    return { markets, ...v4Envelope(b, markets.length, q.offset ?? 0) };
  },

  // Two requests where the record has no `snapshot_count` (the hosted service): the market, then its count.
  market(t, id) {
    return withMarketCoin(id, async (coin) => {
      const path = `/v4/markets/${encodeURIComponent(id)}`;
      const { body } = await get(t, path, coin, {});
      const m = t.parse(() => marketFromV4(body, coin, t.now()), path);
      if (!lacksSnapshotCount(m)) return m;
      return { ...m, snapshot_count: (await v4.snapshotsPage(t, m.market_id, { limit: 1, offset: 0 })).total };
    });
  },

  snapshotsPage(t, id, q, signal) {
    return withMarketCoin(id, async (coin) => {
      const path = `/v4/markets/${encodeURIComponent(id)}/snapshots`;
      const answer = await t.getBytes(
        path,
        {
          coin: coin.toLowerCase(),
          limit: pageLimit(q.limit, V4_SNAPSHOTS_PAGE_MAX),
          offset: q.offset,
          start_time: msParam(q.from),
          end_time: endParam(q.to),
          include_orderbook: q.includeOrderbook ? 'true' : undefined,
        },
        signal,
        v4ErrorFor,
      );
      const priceKey = coinPriceKey(coin);
      const { body: b, page } = readSnapshotPage(t, answer, path, v4RowKeys(coin), (raw) => snapshotFromV4(raw, coin, id, priceKey), q.rowsAs);
      return t.parse(() => {
        const market = b['market'] !== undefined && b['market'] !== null ? marketFromV4(b['market'], coin, t.now()) : null;
        return { market, page, ...v4Envelope(b, page.count, q.offset ?? 0) };
      }, path);
    });
  },

  at(t, marketId, ts, includeOrderbook) {
    return withMarketCoin(marketId, async (coin) => {
      const path = `/v4/markets/${encodeURIComponent(marketId)}/snapshot-at/${msParam(ts)}`;
      const { body } = await get(t, path, coin, { include_orderbook: includeOrderbook ? 'true' : undefined });
      const b = t.object(body, path);
      return t.parse(() => {
        const list = Array.isArray(b['snapshots']) ? (b['snapshots'] as unknown[]) : [];
        const snapshot = snapshotFromV4(list[0], coin, marketId);
        const m = b['market'];
        const id = m !== null && typeof m === 'object' && typeof (m as Record<string, unknown>)['market_id'] === 'string'
          ? ((m as Record<string, unknown>)['market_id'] as string)
          : marketId;
        return { market_id: id, ts, delta_ms: snapshot.time - ts, snapshot };
      }, path);
    });
  },
};
