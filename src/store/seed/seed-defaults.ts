// The seed's defaults, apart from the seeder: `serve seed --help` shows them on every start's
// command tree, and the seeder itself (synthetic markets, books, the PRNG) loads only when it runs.
import type { MarketType } from '../../domain/market.js';

/** How many of the newest markets of each type (per coin, counting the active one) get full snapshots. */
export const DEFAULT_FULL_MARKETS: Record<MarketType, number> = { '5m': 72, '15m': 24, '1hr': 6, '4hr': 3, '24hr': 2 };
