// One market pulled into the mirror: only what the store is missing, each page its own committed
// transaction (an interrupted pull keeps every page, and the next run continues after them).
import type { Market } from '../../domain/market.js';
import type { MsnapApi } from '../../client/types.js';
import type { LocalMarketState, MirrorWriterPort } from '../../store/mirror-store.js';
import type { SnapshotsOptions } from './snapshots.js';

/**
 * One market: nothing to fetch when the store already holds `snapshot_count` rows (and, with
 * --orderbook, fetched their depth) (-1 then); else from after the newest stored snapshot, or with
 * depth asked for, from where its depth stopped (a range: the whole range), and once more from the
 * start if rows are still missing (the store held a range that was not a prefix). Returns the rows added.
 */
export async function pullMarket(
  client: MsnapApi,
  writer: MirrorWriterPort,
  m: Market,
  opts: SnapshotsOptions,
  before: LocalMarketState,
  onPage: (rows: number) => void,
): Promise<number> {
  const ranged = opts.from !== undefined || opts.to !== undefined;
  const { count, lastTime, depthThrough } = before;
  // Depth covers the stored rows once it was fetched past the newest of them.
  const depthDone = !opts.orderbook || (depthThrough !== undefined && lastTime !== undefined && depthThrough > lastTime);
  await writer.market(m);
  // Every snapshot stored: nothing in any range can be missing.
  if (count === m.snapshot_count && count > 0 && depthDone) return -1;
  let added = 0;
  const fetch = async (from: number | undefined): Promise<void> => {
    // Read on from where depth stopped (or before it): each page extends what holds depth.
    const extendsDepth = opts.orderbook && (from ?? m.start_time) <= (depthThrough ?? m.start_time);
    for await (const page of client.snapshotPages(m.market_id, {
      ...(from !== undefined ? { from } : {}),
      ...(opts.to !== undefined ? { to: opts.to } : {}),
      includeOrderbook: opts.orderbook,
      // A page with rows is counted once stored (below); an empty one is never yielded.
      onPage: (p) => {
        if (p.rows === 0) onPage(0);
      },
    })) {
      const rows = page.rows();
      added += await writer.page(m, rows, extendsDepth ? rows[rows.length - 1]!.time + 1 : undefined);
      onPage(page.count);
    }
  };
  // Unranged, the stored rows are a prefix (pages are written oldest first): continue after them,
  // or where their depth stopped (stored rows come again, with depth, and are not doubled).
  // A range may sit beside rows of another range, so it is fetched whole (stored rows are ignored).
  const after = lastTime !== undefined ? lastTime + 1 : undefined;
  const resumeFrom = ranged ? opts.from : depthDone ? after : depthThrough;
  await fetch(resumeFrom);
  if (!ranged && resumeFrom !== undefined && (await writer.local(m.market_id)).count < m.snapshot_count) await fetch(undefined);
  return added;
}
