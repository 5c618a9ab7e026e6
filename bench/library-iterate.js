// What a library user writes to read one market: `for await` over the reader's snapshots, from the
// service (createClient) or from a local store (openStore). Prints the rows read and a checksum of
// their prices, so the figure can check it read what the CLI exported.
// Usage: node bench/library-iterate.js client URL MARKET_ID   (key in MSNAP_API_KEY, dialect in MSNAP_API)
//        node bench/library-iterate.js store DB MARKET_ID
import { createClient } from '../dist/lib/client.js';
import { openStore } from '../dist/lib/store.js';

const [mode, source, marketId] = process.argv.slice(2);
const reader =
  mode === 'client'
    ? createClient({ baseUrl: source, apiKey: process.env.MSNAP_API_KEY, api: process.env.MSNAP_API ?? 'auto' })
    : await openStore(source);
let rows = 0;
let priceSum = 0;
try {
  for await (const s of reader.snapshots(marketId)) {
    rows++;
    priceSum += s.price_up;
  }
} finally {
  await reader.close();
}
process.stdout.write(`${JSON.stringify({ rows, priceSum })}\n`);
