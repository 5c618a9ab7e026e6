// A stored orderbook as a backend hands it to the page writers: the up side's JSON text (down
// beside it), or both books packed into one pair (book-codec.ts), decoded by the backend's
// PairSource against the reference it names.
import type { BookPair } from './book-codec.js';

/** What a stored row's `up` holds: JSON text of the up side, or a packed pair. */
export type StoredBook = string | Uint8Array;

/** Use to tell a packed row from a text row. */
export function isPacked(up: unknown): up is Uint8Array {
  return up instanceof Uint8Array;
}

/** Decodes the packed pairs of one market read in time order (each backend finds references its own way). */
export interface PairSource {
  /**
   * The pair packed in `blob` (the book of `market` at offset t). It stays intact through the next
   * call (page writers compare a row with the one before) and is reused by the call after that.
   */
  pair(market: number, t: number, blob: Uint8Array): BookPair;
  /** Forget what was decoded. */
  reset(): void;
}
