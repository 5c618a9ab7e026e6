// A real market as the import and the recorder write it: Gamma's reading of it (REALDATA.md),
// with its fee schedule in the form the store keeps and the backtest reads (BACKTEST.md's names).
import type { FeeSchedule } from '../../domain/fee-schedule.js';
import type { GammaMarket } from '../gamma/gamma-market.js';

/** A Polymarket crypto Up or Down market mapped to msnap's records; `fees` is stored as JSON, null when Gamma gave none. */
export type RealMarket = Omit<GammaMarket, 'fees' | 'tickSize' | 'minSize'> & { fees: FeeSchedule | null };
