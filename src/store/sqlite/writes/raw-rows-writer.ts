// Writes a page of raw snapshot rows (any times, ids stored one by one) into bytes in an export's
// layout, as the dense writer does for dense pages: a store pulled from a service with gaps in its
// data exports as fast. Rows with depth, and values it does not print, take writeSnapshotRows.
import { SNAPSHOT_INTERVAL_MS } from '../../../domain/market.js';
import { copy, digits8, integer, pageSetup, printable, writeTime, writeValues } from '../../core/row-bytes.js';
import type { RowLayout } from '../../../domain/row-layout.js';
import type { PageIds } from '../../core/snapshot-ids.js';
import type { RawSnapshotRow } from '../../core/snapshot-json.js';

/**
 * Use for a page of rows read without orderbooks: writeSnapshotRows' text for them in `layout`, as
 * bytes of their own; undefined when it declines (ISO times, an empty page, a value or id outside
 * what the byte writers print).
 */
export function writeRawRows(rows: readonly RawSnapshotRow[], ids: PageIds, marketId: string, startTime: number, layout: RowLayout): Uint8Array | undefined {
  const n = rows.length;
  if (n === 0 || layout.isoTimes) return undefined;
  const page = pageSetup(n, rows[0]![0], rows[n - 1]![0], ids, marketId, startTime, layout);
  if (!page) return undefined;
  const { buf, pieces, idHead, idToTime } = page;
  const { base, step } = ids.pattern;
  const exceptions = ids.exceptions;
  let pos = copy(buf, 0, pieces.pageOpen);
  for (let i = 0; i < n; i++) {
    const [t, price, up, down] = rows[i]!;
    if (t !== Math.floor(t) || !printable(price) || !printable(up) || !printable(down)) return undefined;
    if (i > 0) pos = copy(buf, pos, pieces.between);
    pos = copy(buf, pos, pieces.rowOpen);
    const own = exceptions?.get(t);
    if (own !== undefined) {
      if (!(Number.isSafeInteger(own) && own >= 0)) return undefined;
      pos = integer(buf, pos, own);
    } else if (idHead) {
      pos = digits8(buf, copy(buf, pos, idHead), t);
    } else if (step === null) {
      pos = integer(buf, pos, base + t);
    } else {
      // Off the 125 ms grid a slot pattern gives no whole id.
      if (t % SNAPSHOT_INTERVAL_MS !== 0) return undefined;
      pos = integer(buf, pos, base + (t / SNAPSHOT_INTERVAL_MS) * step);
    }
    pos = copy(buf, pos, idToTime);
    pos = writeTime(buf, pos, page, t);
    pos = writeValues(buf, pos, pieces, price, up, down);
  }
  return Buffer.from(buf.subarray(0, copy(buf, pos, pieces.pageClose)));
}
