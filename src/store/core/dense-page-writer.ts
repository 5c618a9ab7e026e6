// Writes a dense market's page of snapshots as JSON bytes (or a local export's CSV or NDJSON lines,
// by their RowLayout) into one reused buffer, then makes one flat string of it. Building the same
// text from string pieces allocates a dozen small strings per row, and collecting them was a
// third of the time of a 10,000-row page.
import { SNAPSHOT_INTERVAL_MS } from '../../domain/market.js';
import { V1_SNAPSHOT_FORMAT, type SnapshotFormat } from '../store.js';
import { ascii, clock, copy, digits8, integer, pageSetup, printable, writeTime, writeValues } from './row-bytes.js';
import { servedPageLayout, type RowLayout } from '../../domain/row-layout.js';
import { pageIds, type PageIds } from './snapshot-ids.js';

/** The dense page query packs both probabilities into one value: up * 2^14 + down, -1 if out of range. */
export const SIDE_BITS = 14;
const SIDE_MASK = (1 << SIDE_BITS) - 1;

const DAY_MS = 86_400_000;
/** 10000-01-01: later times print a six-digit year, which the ISO writer does not. */
const ISO_END_MS = 253_402_300_800_000;

/**
 * Use for a page of a dense market (rows at t = firstT, firstT + 125, ...), as prices and
 * probabilities packed by SIDE_BITS (-1 where a probability is out of range), read from the
 * market's blocks or plucked from its rows. Gives the
 * text snapshotRowsToJson gives for the same rows, or undefined when a value is outside what this
 * writer prints (negative, fractional or huge stored values, a non-ASCII market id, huge or negative
 * ids, ids stored one by one, times before 1970-01-02): the caller then takes the general path.
 */
export function writeDensePage(
  prices: ArrayLike<number>,
  sides: ArrayLike<number>,
  firstT: number,
  idsOrRowid: number | PageIds,
  marketId: string,
  startTime: number,
  format?: SnapshotFormat,
  books?: RowExtra,
): string | undefined {
  const layout = servedPageLayout(format ?? V1_SNAPSHOT_FORMAT);
  if (prices.length === 0) return layout.pageOpen + layout.pageClose;
  const written = fill({ prices, sides, firstT, ids: idsOrRowid, marketId, startTime, extra: books }, layout);
  return written && written.buf.toString('latin1', 0, written.end);
}

/** A dense page's values and what its rows share, as writeDensePage takes them. */
export interface DenseRows {
  prices: ArrayLike<number>;
  sides: ArrayLike<number>;
  firstT: number;
  ids: number | PageIds;
  marketId: string;
  startTime: number;
  /** What each row adds after its values (a served page's orderbooks). */
  extra?: RowExtra;
}

/**
 * Writes what row i of a page adds after its down probability at pos (at most `maxBytes`), returning
 * the new end, or -1 to decline the page (the caller then takes the general path).
 */
export interface RowExtra {
  maxBytes: number;
  write(buf: Buffer, pos: number, i: number): number;
}

/**
 * As writeDensePage, in any layout without orderbooks (an export's lines): writeSnapshotRows' text
 * for the same rows, as bytes of its own (written out as they are: no string made and encoded again).
 */
export function writeDenseRows(page: DenseRows, layout: RowLayout): Uint8Array | undefined {
  if (page.prices.length === 0) return Buffer.from(layout.pageOpen + layout.pageClose, 'latin1');
  const written = fill(page, layout, true);
  return written && written.buf.subarray(0, written.end);
}

/** Writes the page into the shared buffer; returns it and where its text ends, undefined when it declines. */
function fill({ prices, sides, firstT, ids: idsOrRowid, marketId, startTime, extra }: DenseRows, layout: RowLayout, ownBuffer = false): { buf: Buffer; end: number } | undefined {
  const ids = pageIds(idsOrRowid);
  if (ids.exceptions && ids.exceptions.size > 0) return undefined;
  const n = prices.length;
  const lastT = firstT + (n - 1) * SNAPSHOT_INTERVAL_MS;
  const page = pageSetup(n, firstT, lastT, ids, marketId, startTime, layout, extra?.maxBytes, ownBuffer);
  if (!page) return undefined;
  const { buf, pieces, idHead, idToTime } = page;
  const iso = layout.isoTimes;
  if (iso && startTime + lastT >= ISO_END_MS) return undefined;
  const { base, step } = ids.pattern;
  const slotStep = step ?? 0;
  let t = firstT;
  // ISO times: the date part ("YYYY-MM-DDT) changes at most once a day; the rest is arithmetic.
  let dayStart = Math.floor((startTime + firstT) / DAY_MS) * DAY_MS;
  let datePart = ascii(`"${new Date(dayStart).toISOString().slice(0, 11)}`)!;
  let msOfDay = startTime + firstT - dayStart;
  let pos = copy(buf, 0, pieces.pageOpen);
  for (let i = 0; i < n; i++) {
    const price = prices[i]!;
    const ud = sides[i]!;
    if (ud < 0 || !printable(price)) return undefined;
    if (i > 0) pos = copy(buf, pos, pieces.between);
    pos = copy(buf, pos, pieces.rowOpen);
    if (idHead) {
      pos = copy(buf, pos, idHead);
      pos = digits8(buf, pos, t);
    } else {
      pos = integer(buf, pos, step === null ? base + t : base + (t / SNAPSHOT_INTERVAL_MS) * slotStep);
    }
    pos = copy(buf, pos, idToTime);
    if (iso) {
      pos = copy(buf, pos, datePart);
      pos = clock(buf, pos, msOfDay);
      msOfDay += SNAPSHOT_INTERVAL_MS;
      if (msOfDay >= DAY_MS) {
        msOfDay -= DAY_MS;
        dayStart += DAY_MS;
        datePart = ascii(`"${new Date(dayStart).toISOString().slice(0, 11)}`)!;
      }
    } else {
      pos = writeTime(buf, pos, page, t);
    }
    if (extra) {
      pos = extra.write(buf, writeValues(buf, pos, pieces, price, ud >> SIDE_BITS, ud & SIDE_MASK, false), i);
      if (pos < 0) return undefined;
      pos = copy(buf, pos, pieces.rowClose);
    } else {
      pos = writeValues(buf, pos, pieces, price, ud >> SIDE_BITS, ud & SIDE_MASK);
    }
    t += SNAPSHOT_INTERVAL_MS;
  }
  return { buf, end: copy(buf, pos, pieces.pageClose) };
}
