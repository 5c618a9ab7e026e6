// Bench helper: rewrites a store's packed orderbooks as the JSON text an older msnap stored (the
// "before" of figure 12), then VACUUMs so the page accounting is not skewed by freed pages.
import Database from 'better-sqlite3';
import { BookReader } from '../../dist/store/sqlite/books/book-reader.js';

const db = new Database(process.argv[2]);
const reader = new BookReader(db);
const update = db.prepare('UPDATE orderbooks SET up = ?, down = ? WHERE market = ? AND t = ?');
const markets = db.prepare('SELECT DISTINCT market FROM orderbooks').pluck().all();
const rowsOf = db.prepare('SELECT t, up, down FROM orderbooks WHERE market = ? ORDER BY t').raw(true);
// Market by market: a market's texts are made before any of its rows changes (rows refer to earlier rows).
for (const m of markets) {
  const texts = rowsOf.all(m).map(([t, up, down]) => [...reader.texts(m, t, up, down), m, t]);
  db.transaction(() => { for (const row of texts) update.run(...row); })();
}
db.exec('VACUUM');
db.close();
