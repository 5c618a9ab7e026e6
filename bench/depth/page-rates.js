// Bench helper: pages of 1,000 snapshots of the store's full markets read through the store
// (snapshotPageJson, what the server answers with), with and without orderbooks, in alternating
// half-second slices so both see the same machine load, after one unrecorded round that warms the
// page cache and the JIT for both. Prints one JSON line.
import { openSqliteStore } from '../../dist/store/sqlite/open.js';

const [file, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 4);
const store = openSqliteStore(file, { readonly: true });
const now = Date.now();
const markets = (await store.listMarkets({ limit: 1000, offset: 0, window: null, now })).markets.filter((m) => m.snapshot_count >= 2000).slice(0, 50);
const totals = { plain: { pages: 0, bytes: 0, ms: 0 }, books: { pages: 0, bytes: 0, ms: 0 } };
let k = 0;
const warmup = { plain: { pages: 0, bytes: 0, ms: 0 }, books: { pages: 0, bytes: 0, ms: 0 } };
for (let slice = -1; slice < seconds * 2; slice++) {
  for (const kind of ['plain', 'books']) {
    const into = (slice < 0 ? warmup : totals)[kind];
    const t0 = performance.now();
    while (performance.now() - t0 < 250) {
      const m = markets[k++ % markets.length];
      const page = await store.snapshotPageJson(m.market_id, { limit: 1000, offset: 1000, includeOrderbook: kind === 'books' });
      into.pages++;
      into.bytes += Buffer.byteLength(page.json);
    }
    into.ms += performance.now() - t0;
  }
}
store.close();
const rate = (x) => ({ pagesPerSec: x.pages / (x.ms / 1000), bytesPerSec: x.bytes / (x.ms / 1000), bytesPerPage: x.bytes / x.pages });
process.stdout.write(JSON.stringify({ plain: rate(totals.plain), books: rate(totals.books), markets: markets.length }) + '\n');
