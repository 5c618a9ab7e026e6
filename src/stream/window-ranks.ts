// The builder data window on the stream: a builder key receives only markets among the `cap` newest
// of their coin and type, counted among markets that have started by the data clock (as the
// replay view counts them). A market's rank changes only when another of its series opens, so
// ranks are kept until a batch holds an opening.
import type { Market } from '../domain/market.js';
import type { DataWindow } from '../domain/plans.js';
import { ReplayView } from '../replay/replay-view.js';
import type { Store } from '../store/store.js';
import type { FeedEvent } from './visible-feed.js';

type Ranked = Pick<Market, 'market_id' | 'coin' | 'market_type' | 'start_time'>;

/** Use in the hub: prepare(batch) before asking inWindow for its markets. */
export class WindowRanks {
  private readonly ranks = new Map<string, number>();

  constructor(private readonly store: Store) {}

  /** Ranks every market of the batch at data time `at`. */
  async prepare(events: readonly FeedEvent[], at: number): Promise<void> {
    if (events.some((e) => e.kind === 'open')) this.ranks.clear();
    const view = new ReplayView(this.store, () => at);
    for (const e of events) {
      if (this.ranks.has(e.market.market_id)) continue;
      this.ranks.set(e.market.market_id, await view.marketRank(e.market));
    }
  }

  inWindow(market: Ranked, window: Exclude<DataWindow, null>): boolean {
    const rank = this.ranks.get(market.market_id);
    return rank !== undefined && rank < window[market.market_type];
  }
}
