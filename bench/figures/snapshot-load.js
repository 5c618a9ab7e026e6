// Load several servers ("sides") with the same random snapshot pages, taking turns in short
// slices so the machine's noise falls on every side alike. A side of several instances (a
// scaled-out serve) splits the connections over them and runs one autocannon per instance at once.
import autocannon from 'autocannon';

/** `sides`: [name, urls[]] (`keys[name]`: that side's own key, else `key`; `query`: more parameters, e.g. '&include_orderbook=true'); returns per side { requests, seconds, reqPerSec, p50, p99, non2xx, errors }. */
export async function loadSnapshots(sides, { key, keys = {}, markets, page, sizes, query = '' }) {
  const headersOf = (name) => ({ 'x-api-key': keys[name] ?? key });
  const path = () => {
    const m = markets[Math.floor(Math.random() * markets.length)];
    const offset = Math.floor(Math.random() * Math.max(1, m.snapshot_count - page));
    return `/api/v1/markets/${m.market_id}/snapshots?limit=${page}&offset=${offset}${query}`;
  };
  // A short unrecorded run per side first: JIT, page cache, pools and connection set-up.
  for (const [name, urls] of sides) await side(urls, headersOf(name), path, sizes.connections, sizes.warmupSeconds);
  const results = {};
  for (let slice = 0; slice < sizes.loadSlices; slice++) {
    for (const [name, urls] of sides) {
      const r = await side(urls, headersOf(name), path, sizes.connections, sizes.loadSeconds / sizes.loadSlices);
      const slot = (results[name] ??= { requests: 0, seconds: 0, reqPerSec: 0, p50: 0, p99: 0, non2xx: 0, errors: 0 });
      slot.requests += r.requests;
      slot.seconds += r.seconds;
      slot.reqPerSec = slot.requests / slot.seconds;
      slot.p50 = Math.max(slot.p50, r.p50);
      slot.p99 = Math.max(slot.p99, r.p99);
      slot.non2xx += r.non2xx;
      slot.errors += r.errors;
    }
  }
  return results;
}

async function side(urls, headers, path, connections, seconds) {
  const each = Math.max(1, Math.round(connections / urls.length));
  const runs = await Promise.all(
    urls.map((url) =>
      autocannon({ url, connections: each, duration: seconds, headers, requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path() }) }] }),
    ),
  );
  return {
    requests: runs.reduce((n, r) => n + r.requests.total, 0),
    seconds,
    p50: Math.max(...runs.map((r) => r.latency.p50)),
    p99: Math.max(...runs.map((r) => r.latency.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors + r.timeouts, 0),
  };
}
