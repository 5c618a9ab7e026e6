// v1, the contract's own dialect (`/api/v1/...`, `/v1/...`): records already in msnap's names,
// every coin in one list, limits from /api/v1/limits.
import { toNumber } from '../../domain/numeric-field.js';
import { normalizeLimits, normalizeMarket, normalizeSnapshot, toEpochMs } from '../normalize.js';
import { rowKeys } from '../pages/snapshot-page-scan.js';
import { readSnapshotPage } from '../pages/snapshot-page.js';
import type { Transport } from '../transport/transport.js';
import type { AtResult } from '../types.js';
import { paceOf, type Dialect } from './dialect.js';
import { v1Envelope } from './list-envelope.js';

// The snapshot fields a page's rows may be read fast under (snapshot-page-scan.ts).
const V1_ROW_KEYS = rowKeys(['price']);

// at-timestamp carries no depth: with it asked, the market's snapshot-at (same nearest rule) does.
async function snapshotAt(t: Transport, marketId: string, ts: number): Promise<AtResult> {
  const path = `/v1/markets/${encodeURIComponent(marketId)}/snapshot-at/${Math.floor(ts)}`;
  const { body } = await t.get(path, { include_orderbook: 'true' });
  const b = t.object(body, path);
  return t.parse(() => {
    const list = Array.isArray(b['snapshots']) ? (b['snapshots'] as unknown[]) : [];
    const snapshot = normalizeSnapshot(list[0], marketId);
    return { market_id: snapshot.market_id, ts, delta_ms: snapshot.time - ts, snapshot };
  }, path);
}

/** Use for `--api v1` (and for `auto` when the service has no /v4). */
export const v1: Dialect = {
  name: 'v1',
  marketsCounted: true,

  listCoins: (coin) => [coin],

  // With a key the keyed /api/health (which also checks the key); without one the public /health,
  // whose `version` is an msnap extension (the hosted service's says only status and timestamp).
  async health(t) {
    const path = t.keyed ? '/api/health' : '/health';
    const { body, ms } = t.keyed ? await t.get(path, {}) : await t.getPublic(path);
    const b = t.object(body, path);
    return {
      status: typeof b['status'] === 'string' ? b['status'] : 'unknown',
      time: toEpochMs(b['time'] ?? b['timestamp']) ?? 0,
      version: typeof b['version'] === 'string' ? b['version'] : 'unknown',
      rttMs: ms,
    };
  },

  async limits(t) {
    const { body } = await t.get('/api/v1/limits', {});
    const limits = t.parse(() => normalizeLimits(body), '/api/v1/limits');
    return { limits, pace: paceOf(limits) };
  },

  async marketsPage(t, q) {
    const path = '/api/v1/markets';
    const { body } = await t.get(path, {
      coin: q.coin,
      market_type: q.marketType,
      status: q.status,
      limit: q.limit,
      offset: q.offset,
      start_time: q.startTime,
      end_time: q.endTime,
    });
    const b = t.object(body, path);
    const now = t.now();
    const raw = Array.isArray(b['markets']) ? (b['markets'] as unknown[]) : [];
    const markets = t.parse(() => raw.map((m) => normalizeMarket(m, now)), path);
    return { markets, ...v1Envelope(b, markets.length, q.offset ?? 0) };
  },

  async market(t, id) {
    const path = `/api/v1/markets/${encodeURIComponent(id)}`;
    const { body } = await t.get(path, {});
    const b = t.object(body, path);
    const now = t.now();
    // Older services wrapped it as {market}; the contract now answers the bare object.
    return t.parse(() => normalizeMarket(b['market'] ?? b, now), path);
  },

  async snapshotsPage(t, id, q, signal) {
    const path = `/api/v1/markets/${encodeURIComponent(id)}/snapshots`;
    const answer = await t.getBytes(
      path,
      {
        limit: q.limit,
        offset: q.offset,
        start_time: q.from,
        end_time: q.to,
        include_orderbook: q.includeOrderbook ? 'true' : undefined,
      },
      signal,
    );
    const { body: b, page } = readSnapshotPage(t, answer, path, V1_ROW_KEYS, (raw) => normalizeSnapshot(raw, id), q.rowsAs);
    const now = t.now();
    return t.parse(() => {
      const market = b['market'] !== undefined && b['market'] !== null ? normalizeMarket(b['market'], now) : null;
      return { market, page, ...v1Envelope(b, page.count, q.offset ?? 0) };
    }, path);
  },

  async at(t, marketId, ts, includeOrderbook) {
    if (includeOrderbook) return snapshotAt(t, marketId, ts);
    const path = '/v1/snapshots/at-timestamp';
    const { body } = await t.get(path, { market: marketId, ts });
    const b = t.object(body, path);
    return t.parse(() => {
      const snapshot = normalizeSnapshot(b['snapshot'], marketId);
      const asked = toEpochMs(b['ts']) ?? ts;
      return {
        market_id: typeof b['market_id'] === 'string' ? b['market_id'] : marketId,
        ts: asked,
        delta_ms: toNumber(b['delta_ms']) ?? snapshot.time - asked,
        snapshot,
      };
    }, path);
  },
};
