// What a live snapshot stream (`GET /v1/stream`, BOTS.md) hands a watch, decoded from its frames,
// and how a client opens one. The WebSocket itself lives in snapshot-stream.ts, loaded only by a
// run that opens a stream.
import type { Coin, Market, MarketType, Snapshot } from '../../domain/market.js';

/** One decoded frame, or the stream's end. */
export type StreamEvent =
  | { type: 'snapshot'; snapshot: Snapshot }
  | { type: 'market_open'; market: Market }
  | { type: 'market_resolved'; market: Market }
  /** A replay reached its end: nothing more will come. */
  | { type: 'end' }
  /** The connection closed (4002: too slow; anything else: the server or the network went away). */
  | { type: 'closed'; code: number; reason: string };

/** What to subscribe to. */
export interface StreamSubscription {
  coins: Coin[];
  marketTypes: MarketType[];
  orderbook: boolean;
}

/** An open, subscribed stream. */
export interface SnapshotStream {
  /** The next event, oldest first; after `closed` or `end` it keeps answering that event. */
  next(): Promise<StreamEvent>;
  /** Events received and not taken yet. */
  readonly buffered: number;
  close(): void;
}

/**
 * What opening gave: a stream, or why there is none. `absent`: the service offers no stream (404:
 * the hosted service, a static `msnap serve`); `refused`: it has one but would not open it for us
 * (4008: the key's streams are all in use), said in `reason`.
 */
export type StreamOpening = { stream: SnapshotStream } | { absent: true } | { refused: string };

/** A client that can open a live stream (a service client; a local store cannot). */
export interface StreamCapable {
  openStream(sub: StreamSubscription): Promise<StreamOpening>;
}
