// An SQLite store holding every kind of data the PostgreSQL store must serve the same: seeded
// markets (dense, with depth near the clock), hosted-service exports (details, source ids by slot
// and by ms, old-shape depth), msnap CSV, and hand-made rows that are not dense, carry an id that
// breaks their pattern, and sit 100 ms apart so a nearest read can tie.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importFile } from '../../import/import-file.js';
import { seedDatabase } from '../../seed/seed.js';
import { openSqliteStore } from '../../sqlite/open.js';
import type { SqliteStore } from '../../sqlite/sqlite-store.js';

/** The clock the data is seeded at. */
export const MIXED_NOW = Date.UTC(2025, 10, 22, 13, 7, 30, 500);
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../fixtures');

/** A hand-made market: not dense (rows 100 ms apart), with details and one id off its pattern. */
export const ODD_MARKET = 'eth-updown-5m-1763762400';
/** A market far before the seeded range, with details only. */
export const OLD_MARKET = 'sol-updown-1hr-1763424000';

/** Use to build the store at `file` (about a second); returns it open. */
export async function buildMixedSqliteStore(dir: string, file: string): Promise<SqliteStore> {
  const store = openSqliteStore(file);
  await seedDatabase(store.bulk, {
    now: MIXED_NOW,
    days: 1,
    fullMarkets: { '5m': 3, '15m': 1, '1hr': 2, '4hr': 0, '24hr': 0 },
    orderbookMs: 60_000,
  });
  for (const name of ['hosted-markets.ndjson', 'hosted-snapshots.ndjson', 'msnap-orderbooks-pairs.ndjson', 'msnap-snapshots.csv']) {
    await importFile(store.bulk, path.join(FIXTURES, name));
  }
  const handMade = path.join(dir, 'hand-made.ndjson');
  writeFileSync(handMade, handMadeLines().join('\n') + '\n');
  await importFile(store.bulk, handMade);
  return store;
}

function handMadeLines(): string[] {
  const start = 1763762400000; // 2025-11-21T22:00Z, a seeded 5m market without rows
  const lines: string[] = [
    JSON.stringify({
      market_id: ODD_MARKET, coin: 'ETH', market_type: '5m', start_time: start, end_time: start + 300_000,
      price_start: 3400.5, price_end: null, winner: null,
      event_id: 'ev-1', condition_id: '0xabc', clob_token_up: 'tok-up', clob_token_down: 'tok-down',
      final_volume: 12345.678, final_liquidity: 0.1 + 0.2, resolved_at: start + 300_500, created_at: start - 86_400_000, updated_at: start + 301_000,
    }),
    JSON.stringify({
      market_id: OLD_MARKET, coin: 'SOL', market_type: '1hr', start_time: 1763424000000, end_time: 1763427600000,
      price_start: 190.25, price_end: 189.5, winner: 'Down', event_id: 'ev-old', final_volume: 1e-7,
    }),
  ];
  for (let k = 0; k < 40; k++) {
    const t = k * 100;
    // Ids run 7000 + t, except one that a re-listing changed.
    const id = k === 17 ? 999_999 : 7000 + t;
    const depth = k % 3 === 0 ? { orderbook_up: { bids: [{ price: 0.5, size: 10 + k }], asks: [] }, orderbook_down: { bids: [], asks: [{ price: 0.51, size: 2.5 }] } } : {};
    lines.push(JSON.stringify({ id, market_id: ODD_MARKET, time: start + t, price: 3400.5 + k * 0.0125, price_up: 0.5 + k / 1000, price_down: 0.5 - k / 1000, ...depth }));
  }
  // Two rows a seeded (dense) market already holds, listed again under other ids: exceptions there.
  const dense = 1763816400000; // btc-updown-5m at 13:00, full
  lines.push(JSON.stringify({ id: 42, market_id: 'btc-updown-5m-1763816400', time: dense, price: 1, price_up: 0.5, price_down: 0.5 }));
  lines.push(JSON.stringify({ id: 4242, market_id: 'btc-updown-5m-1763816400', time: dense + 250, price: 1, price_up: 0.5, price_down: 0.5 }));
  return lines;
}
