// The text around a snapshot row's values. A served page is a JSON array of objects with keys; a
// local export writes the same rows as CSV lines or NDJSON. Only the pieces between the values
// differ, so one writer per kind of page (dense values, raw rows) serves every layout.
import type { SnapshotFormat } from './snapshot-format.js';

/** Use to say how stored snapshot rows become text; build one per output, not per page. */
export interface RowLayout {
  /** Before the first row of a page, and after its last. */
  pageOpen: string;
  pageClose: string;
  /** Between two rows of a page. */
  between: string;
  /** Before a row's id. */
  rowOpen: string;
  /** Between the id and the time, for rows of this market. */
  idToTime(marketId: string): string;
  /** Before the price, the up and the down probability. */
  price: string;
  up: string;
  down: string;
  /**
   * What a row adds after its down probability when the page was read with orderbooks, from the
   * stored depth texts (null where the row has none); undefined: the layout has no orderbook.
   */
  orderbook?: (up: string | null, down: string | null) => string;
  /** After the last value of a row. */
  rowClose: string;
  /** Times as quoted ISO 8601 strings instead of epoch ms (served v2 pages). */
  isoTimes: boolean;
}

const servedLayouts = new Map<string, RowLayout>();

/** Use for a served page: the JSON array of the contract's snapshots in a dialect's format; stored depth goes in as it is. */
export function servedPageLayout(format: SnapshotFormat): RowLayout {
  const key = `${format.priceKey}\n${format.times}`;
  let layout = servedLayouts.get(key);
  if (!layout) {
    layout = {
      pageOpen: '[',
      pageClose: ']',
      between: ',',
      rowOpen: '{"id":',
      idToTime: (marketId) => `,"market_id":${JSON.stringify(marketId)},"time":`,
      price: `,${JSON.stringify(format.priceKey)}:`,
      up: ',"price_up":',
      down: ',"price_down":',
      orderbook: (up, down) => (up != null && down != null ? `,"orderbook_up":${up},"orderbook_down":${down}` : ''),
      rowClose: '}',
      isoTimes: format.times === 'iso',
    };
    servedLayouts.set(key, layout);
  }
  return layout;
}
