// How a dialect prints a snapshot: the coin price's key and the style of `time`. Shared by the
// stores (served pages), the client and the CLI's exports, so it lives with the other contract terms.
import type { TimeStyle } from './dialect-records.js';

/** How a page prints each snapshot: the key of the coin price and the style of `time`. */
export interface SnapshotFormat {
  /** `price` (v1) or the coin's own (`btc_price`). */
  priceKey: string;
  times: TimeStyle;
}

/** The contract's v1 snapshot: `price` and epoch ms. */
export const V1_SNAPSHOT_FORMAT: SnapshotFormat = { priceKey: 'price', times: 'ms' };
