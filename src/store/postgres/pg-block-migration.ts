// Moving a PostgreSQL store an older msnap wrote (one row per snapshot and per orderbook) into
// blocks, in place: whole markets per transaction (their blocks written, their rows deleted, the
// market marked), so a run stopped anywhere leaves every market either in rows or in blocks, both
// served alike, and the next run continues. Once no market is left in rows the emptied row tables
// are truncated, which hands their space back.
import type postgres from 'postgres';
import type { BlockMoveProgress, BlockMoveResult } from '../block-migration.js';
import { moveMarketToBlocks } from './pg-blocks.js';
import type { Pg } from './pg-connection.js';

/** What the move needs of a PgStore. */
export interface PgBulkAccess {
  readonly sql: Pg;
  bulkTransaction<T>(fn: (tx: postgres.ReservedSql) => Promise<T>): Promise<T>;
}

/** Use through PgStore.moveRowsToBlocks: `batchRows` rows (whole markets, at least one) per transaction. */
export async function moveRowsToBlocks(
  store: PgBulkAccess,
  opts: { batchRows: number; onProgress?: (p: BlockMoveProgress) => void },
): Promise<BlockMoveResult> {
  const [left] = await store.sql<{ markets: number; rows: number }[]>`
    SELECT count(*)::int AS markets, coalesce(sum(snapshot_count), 0)::bigint AS rows FROM markets WHERE in_rows`;
  const progress: BlockMoveProgress = { markets: 0, totalMarkets: left!.markets, rows: 0, totalRows: left!.rows };
  for (;;) {
    const batch = await store.bulkTransaction(async (tx) => {
      const next = await tx<{ id: number; n: number }[]>`
        SELECT id, snapshot_count AS n FROM markets WHERE in_rows ORDER BY id LIMIT ${Math.max(1, Math.ceil(opts.batchRows / 100))}`;
      let rows = 0;
      let markets = 0;
      for (const m of next) {
        if (markets > 0 && rows + m.n > opts.batchRows) break;
        rows += await moveMarketToBlocks(tx, m.id);
        markets++;
      }
      return { markets, rows };
    });
    if (batch.markets === 0) break;
    progress.markets += batch.markets;
    progress.rows += batch.rows;
    opts.onProgress?.({ ...progress });
  }
  await store.bulkTransaction(async (tx) => {
    const [still] = await tx<{ any: boolean }[]>`SELECT EXISTS (SELECT 1 FROM markets WHERE in_rows) AS any`;
    if (!still!.any) await tx`TRUNCATE snapshots, orderbooks`;
  });
  return { markets: progress.markets, rows: progress.rows };
}
