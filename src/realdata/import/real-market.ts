// A real market as the import needs it, whichever source described it (Gamma's API, a saved
// Gamma file, later the recorder): msnap's id and window, Polymarket's ids, its outcome and fees.
import type { Coin, MarketType } from '../../domain/market.js';

/** A Polymarket crypto Up or Down market mapped to msnap's records (REALDATA.md). */
export interface RealMarket {
  marketId: string;
  slug: string;
  conditionId: string;
  coin: Coin;
  marketType: MarketType;
  startTime: number;
  endTime: number;
  tokenUp: string;
  tokenDown: string;
  closed: boolean;
  /** Only Gamma's, once the market is closed; null otherwise. */
  winner: 'Up' | 'Down' | null;
  /** The market's fee schedule as Gamma gave it (stored as JSON), or null. */
  fees: object | null;
  eventId: string | null;
}
