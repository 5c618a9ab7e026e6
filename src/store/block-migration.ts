// The port `serve compact-books --db postgres://…` moves a PostgreSQL store an older msnap wrote
// (one row per snapshot) into blocks through; PgStore implements it, the CLI sees only this type.

/** Progress of a move, after each committed batch. */
export interface BlockMoveProgress {
  markets: number;
  totalMarkets: number;
  rows: number;
  totalRows: number;
}

/** What a move did. */
export interface BlockMoveResult {
  markets: number;
  rows: number;
}

/** A store whose legacy rows can be moved into blocks, a batch of whole markets per transaction. */
export interface RowsToBlocks {
  moveRowsToBlocks(opts: { batchRows: number; onProgress?: (p: BlockMoveProgress) => void }): Promise<BlockMoveResult>;
}

/** True for a store that offers the move (PostgreSQL). */
export function canMoveRowsToBlocks(store: object): store is RowsToBlocks {
  return typeof (store as Partial<RowsToBlocks>).moveRowsToBlocks === 'function';
}
