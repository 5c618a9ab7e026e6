// The snapshot schema's CSV, NDJSON and JSON rows as RowLayouts: a local store writes an export's
// text with them straight from its stored values, byte for byte what the exporter writes from the
// records (snapshot-text.test.ts and the mirror e2e test hold the two side by side). The field
// names and their order are snapshotSchema's.
import type { RowLayout } from '../../../domain/row-layout.js';
import { csvCell } from '../csv.js';
import type { OutputFormat, TextFormat } from '../format.js';

export type { TextFormat };

/** True for the formats snapshotRowLayout covers. */
export function isTextFormat(format: OutputFormat): format is TextFormat {
  return format === 'csv' || format === 'ndjson' || format === 'json';
}

const layouts = new Map<string, RowLayout>();

/**
 * Use for snapshotSchema(false) and snapshotSchema(true): the layout of their rows in `format`.
 * JSON rows come without the array's brackets (the exporter adds them, and `,\n` between pages).
 * Orderbook pieces get each side's depth as JSON text, null where the record has none.
 */
export function snapshotRowLayout(format: TextFormat, withOrderbook: boolean): RowLayout {
  const key = `${format} ${withOrderbook}`;
  let layout = layouts.get(key);
  if (!layout) {
    layout = format === 'csv' ? csvLayout(withOrderbook) : jsonLayout(format === 'ndjson' ? '' : ',\n', format === 'ndjson' ? '}\n' : '}', withOrderbook);
    layouts.set(key, layout);
  }
  return layout;
}

function csvLayout(withOrderbook: boolean): RowLayout {
  const side = (text: string | null): string => (text === null ? '' : csvCell(text));
  return {
    pageOpen: '',
    pageClose: '',
    between: '',
    rowOpen: '',
    idToTime: (marketId) => `,${csvCell(marketId)},`,
    price: ',',
    up: ',',
    down: ',',
    ...(withOrderbook ? { orderbook: (up: string | null, down: string | null) => `,${side(up)},${side(down)}` } : {}),
    rowClose: '\n',
    isoTimes: false,
  };
}

function jsonLayout(between: string, rowClose: string, withOrderbook: boolean): RowLayout {
  return {
    pageOpen: '',
    pageClose: '',
    between,
    rowOpen: '{"id":',
    idToTime: (marketId) => `,"market_id":${JSON.stringify(marketId)},"time":`,
    price: ',"price":',
    up: ',"price_up":',
    down: ',"price_down":',
    // A side the record lacks is left out, as JSON.stringify leaves out an undefined field.
    ...(withOrderbook
      ? {
          orderbook: (up: string | null, down: string | null) =>
            (up === null ? '' : `,"orderbook_up":${up}`) + (down === null ? '' : `,"orderbook_down":${down}`),
        }
      : {}),
    rowClose,
    isoTimes: false,
  };
}
