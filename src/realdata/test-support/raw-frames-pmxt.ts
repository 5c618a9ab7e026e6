// The recorder's raw files (`--raw DIR`) read back independently of the recorder's own parsers and
// turned into what the other paths take: PMXT rows (receipt time = the line's time, exchange time
// = the message's) for the archive import and the reference reconstruction, and Chainlink price
// points for the reference's price rule.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pmxtRow, type PmxtRow } from './pmxt-fixture.js';
import type { PricePoint } from './reference-snapshots.js';

/** One line of a raw file as written. */
export interface RawFileLine {
  t: number;
  src: string;
  frame?: string;
  open?: true;
  down?: string;
}

/** Use to read every raw file of a folder, in file-name (hour) order, lines in written order. */
export function readRawDir(dir: string): RawFileLine[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl.gz')).sort();
  return files.flatMap((f) =>
    gunzipSync(readFileSync(path.join(dir, f)))
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as RawFileLine),
  );
}

type Msg = Record<string, unknown>;
const levelsText = (v: unknown) => JSON.stringify(((v as { price: string; size: string }[]) ?? []).map((l) => [l.price, l.size]));

/** Use to turn the market channel's frames into PMXT rows, one per message (one per change of a price_change). */
export function clobRows(lines: readonly RawFileLine[]): PmxtRow[] {
  const rows: PmxtRow[] = [];
  for (const line of lines) {
    if (line.src !== 'clob' || line.frame === undefined) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line.frame);
    } catch {
      continue;
    }
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Msg[]) {
      const key = { timestamp_received: line.t, timestamp: Number(m.timestamp), market: String(m.market), event_type: String(m.event_type) };
      if (m.event_type === 'book') rows.push(pmxtRow({ ...key, asset_id: String(m.asset_id), bids: levelsText(m.bids), asks: levelsText(m.asks) }));
      else if (m.event_type === 'price_change') {
        for (const c of m.price_changes as Msg[]) {
          rows.push(pmxtRow({ ...key, asset_id: String(c.asset_id), price: String(c.price), size: String(c.size), side: c.side as 'BUY' | 'SELL', best_bid: String(c.best_bid), best_ask: String(c.best_ask) }));
        }
      } else if (m.event_type === 'last_trade_price') {
        rows.push(pmxtRow({ ...key, asset_id: String(m.asset_id), price: String(m.price), size: String(m.size), side: m.side as 'BUY' | 'SELL', fee_rate_bps: Number(m.fee_rate_bps), transaction_hash: String(m.transaction_hash) }));
      } else if (m.event_type === 'tick_size_change') {
        rows.push(pmxtRow({ ...key, asset_id: String(m.asset_id), old_tick_size: String(m.old_tick_size), new_tick_size: String(m.new_tick_size) }));
      }
    }
  }
  return rows;
}

/** Use to turn RTDS frames into the Chainlink price points of one symbol (`btc/usd`). */
export function chainlinkPoints(lines: readonly RawFileLine[], symbol: string): PricePoint[] {
  const points: PricePoint[] = [];
  for (const line of lines) {
    if (line.src !== 'rtds' || line.frame === undefined || !line.frame.startsWith('{')) continue;
    const m = JSON.parse(line.frame) as { topic?: string; payload?: { symbol: string; timestamp: number; value: number } };
    if (m.topic === 'crypto_prices_chainlink' && m.payload?.symbol === symbol) points.push({ knownAt: m.payload.timestamp, value: String(m.payload.value) });
  }
  return points;
}
