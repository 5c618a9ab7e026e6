// The row layout an older msnap wrote (PostgreSQL schema 4: one snapshots row per snapshot, one
// orderbooks row of JSON text per book), made from a store in blocks: what `serve compact-books`
// moves from. For the migration's tests and bench figure 18, which need such stores to start from.
import { booksText, decodeBlock } from './pg-block-codec.js';
import type { PgBulkAccess } from './pg-block-migration.js';

/** Use on a throwaway store: every market in blocks goes back into the row tables; returns the rows written. */
export async function moveBlocksToRows(store: PgBulkAccess): Promise<number> {
  return store.bulkTransaction(async (tx) => {
    const markets = await tx<{ id: number }[]>`SELECT id FROM markets WHERE NOT in_rows ORDER BY id`;
    let written = 0;
    for (const { id } of markets) {
      const blocks = await tx<{ vals: Buffer; books: Buffer | null }[]>`SELECT vals, books FROM snapshot_blocks WHERE market = ${id} ORDER BY bucket`;
      for (const block of blocks) {
        const rows = decodeBlock(block.vals, block.books);
        await tx`INSERT INTO snapshots (market, t, price, price_up, price_down)
          SELECT ${id}, * FROM unnest(${tx.array(rows.t, 23)}::int[], ${tx.array(rows.price, 20)}::bigint[], ${tx.array(rows.up, 20)}::bigint[],
            ${tx.array(rows.down, 20)}::bigint[])`;
        const books = rows.books.flatMap((b, i) => (b === undefined ? [] : [[rows.t[i]!, ...booksText(b)] as const]));
        if (books.length > 0) {
          await tx`INSERT INTO orderbooks (market, t, up, down)
            SELECT ${id}, * FROM unnest(${tx.array(books.map((b) => b[0]), 23)}::int[], ${tx.array(books.map((b) => b[1]))}::text[],
              ${tx.array(books.map((b) => b[2]))}::text[])`;
        }
        written += rows.t.length;
      }
      await tx`DELETE FROM snapshot_blocks WHERE market = ${id}`;
      await tx`UPDATE markets SET in_rows = true WHERE id = ${id}`;
    }
    return written;
  });
}
