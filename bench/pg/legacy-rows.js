// Bench helper: moves every market of a PostgreSQL store (URL) back into the row layout an older
// msnap wrote (one row per snapshot and per orderbook), the "before" of figure 18. Prints the rows.
import { openPgStore } from '../../dist/store/postgres/pg-store.js';
import { moveBlocksToRows } from '../../dist/store/postgres/pg-legacy-layout.js';

const store = await openPgStore(process.argv[2], { max: 2 });
try {
  process.stdout.write(`${await moveBlocksToRows(store)}\n`);
} finally {
  await store.close();
}
