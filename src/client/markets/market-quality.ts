// One market's data-quality report (`msnap quality`, the MCP tool `quality`): its snapshots, cut
// to from/to, read page by page through any MsnapApi and fed to the pure scan.
import { QualityScan, type QualityReport } from '../../analysis/quality.js';
import type { Market } from '../../domain/market.js';
import type { MsnapApi } from '../types.js';

/** Use to check one market's snapshots (within from/to) as `msnap quality` does. */
export async function scanMarket(
  client: MsnapApi,
  market: Market,
  opts: { from?: number; to?: number; sumTolerance: number },
  now: number,
): Promise<QualityReport> {
  const start = Math.max(market.start_time, opts.from ?? -Infinity);
  const end = Math.min(market.end_time, opts.to ?? Infinity);
  const scan = new QualityScan(market.market_id, market.start_time, start, end, { sumTolerance: opts.sumTolerance });
  for await (const page of client.snapshotPages(market.market_id, {
    ...(opts.from !== undefined ? { from: opts.from } : {}),
    ...(opts.to !== undefined ? { to: opts.to } : {}),
    includeOrderbook: true,
  })) {
    for (const s of page.rows()) scan.add(s);
  }
  return scan.finish(market.end_time > now);
}
