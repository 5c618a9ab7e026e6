// `msnap serve compact-books --db postgres://…`: moves a PostgreSQL store an older msnap wrote
// (one row per snapshot and orderbook) into blocks, in place, whole markets per transaction.
import { UsageError } from '../../errors.js';
import { canMoveRowsToBlocks, type BlockMoveResult } from '../../store/block-migration.js';
import { storeName } from '../../store/db-path.js';
import { usingStore } from '../../service/store-use.js';
import type { CliDeps } from '../deps.js';

/** Moves the store's markets still in rows into blocks, progress on stderr, a summary on stdout. */
export async function runCompactBlocks(opts: { db: string; batchRows: number }, deps: CliDeps): Promise<BlockMoveResult> {
  const fmt = (n: number) => n.toLocaleString('en-US');
  return usingStore(deps.openStore(opts.db, { mustExist: true }), opts.db, async (store) => {
    if (!canMoveRowsToBlocks(store)) throw new UsageError(`${storeName(opts.db)} keeps no snapshots in rows`);
    const started = performance.now();
    const done = await store.moveRowsToBlocks({
      batchRows: opts.batchRows,
      onProgress: (p) =>
        deps.writeErr(
          `compact-books: ${fmt(p.markets)} / ${fmt(p.totalMarkets)} markets, ${fmt(p.rows)} / ${fmt(p.totalRows)} rows ` +
            `(${p.totalRows ? Math.floor((100 * p.rows) / p.totalRows) : 100}%)\n`,
        ),
    });
    const s = (performance.now() - started) / 1000;
    deps.writeOut(
      `compacted ${storeName(opts.db)}: ${fmt(done.markets)} markets, ${fmt(done.rows)} snapshot rows moved into blocks in ${s.toFixed(1)} s ` +
        `(${fmt(Math.round(done.rows / Math.max(s, 1e-3)))} rows/s)\n`,
    );
    return done;
  });
}
