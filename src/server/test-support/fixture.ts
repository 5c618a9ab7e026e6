// The data set every route and dialect suite runs on, whatever the backend: markets of two coins,
// snapshots with depth, one market with the hosted service's details, and keys of every state.
// It is written into a MemoryStore; the SQLite and PostgreSQL backends copy that store's contents.
import { marketStartCovering, type Coin, type MarketType } from '../../domain/market.js';
import { MemoryStore } from './memory-store.js';

/** The clock the suites start at. */
export const T0 = Date.UTC(2025, 10, 22, 12, 0, 0);
const DAY = 86_400_000;
/** Start of the newest BTC 24hr market (rank 0); 20 of them, 40 snapshots each. */
export const NEWEST_24H = marketStartCovering('24hr', T0) - DAY;
/** The id of the BTC 24hr market of rank `rank` (0 = newest; the builder window holds 14). */
export const btc24 = (rank: number): string => `btc-updown-24hr-${(NEWEST_24H - rank * DAY) / 1000}`;
/** The newest ETH 1hr market (the active one at T0), 10 snapshots. */
export const ETH_1H = `eth-updown-1hr-${marketStartCovering('1hr', T0) / 1000}`;
/** The details btc24(0) carries. */
export const DETAILS = {
  event_id: '1234567',
  condition_id: `0x${'0f'.repeat(32)}`,
  clob_token_up: '7'.repeat(72),
  clob_token_down: '8'.repeat(75),
  final_volume: 1250.5,
  final_liquidity: 300,
  resolved_at: NEWEST_24H + DAY + 60_000,
  created_at: NEWEST_24H - DAY,
  updated_at: NEWEST_24H + DAY + 60_000,
};
/** btc24(0)'s depth at its second snapshot. */
export const BOOK = { bids: [{ price: 0.52, size: 120.5 }], asks: [{ price: 0.53, size: 7 }] };

/** Consecutive markets of one coin and type (MemoryStore.addMarkets), added to the data set by a test that needs them. */
export interface MarketSeries {
  coin: Coin;
  type: MarketType;
  newestStart: number;
  count: number;
  snapshotsEach?: number;
}

/** Use to build the data set (plus `more`) in a fresh MemoryStore. */
export function fixtureStore(more: readonly MarketSeries[] = []): MemoryStore {
  const store = new MemoryStore();
  store.addMarkets('BTC', '24hr', NEWEST_24H, 20, 40);
  store.addMarkets('ETH', '1hr', marketStartCovering('1hr', T0), 3, 10);
  store.setDetails(btc24(0), DETAILS);
  store.setOrderbook(btc24(0), NEWEST_24H + 125, BOOK, { bids: [], asks: [{ price: 0.48, size: 1 }] });
  store.addAccountWithKey({ name: 'b', plan: 'builder' }, 'key-builder', T0 - DAY);
  store.addAccountWithKey({ name: 'b', plan: 'builder' }, 'key-builder-2', T0 - DAY);
  store.addAccountWithKey({ name: 'p', plan: 'pro' }, 'key-pro', T0 - DAY);
  store.addAccountWithKey({ name: 't', plan: 'builder', trialEndsAt: T0 + 2 * DAY }, 'key-trial', T0 - DAY);
  store.addAccountWithKey({ name: 'old', plan: 'builder', trialEndsAt: T0 - 1 }, 'key-ended', T0 - 4 * DAY);
  store.addAccountWithKey({ name: 'e', plan: 'enterprise', requestsPerMinute: 100, burstPerSecond: 7 }, 'key-ent', T0);
  // The minute window refuses before the bucket does.
  store.addAccountWithKey({ name: 'slow', plan: 'enterprise', requestsPerMinute: 3, burstPerSecond: 50 }, 'key-slow', T0);
  const revoked = store.addAccountWithKey({ name: 'b', plan: 'builder' }, 'key-revoked', T0 - DAY);
  void store.revokeKey(revoked.record.id, T0 - 1000);
  const expired = store.addAccountWithKey({ name: 'p', plan: 'pro' }, 'key-expired', T0 - DAY);
  store.expireKey(expired.record.id, T0 - 1000);
  for (const s of more) store.addMarkets(s.coin, s.type, s.newestStart, s.count, s.snapshotsEach);
  return store;
}
