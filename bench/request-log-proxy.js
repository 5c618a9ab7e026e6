// A loopback pass-through proxy that records every request's time and status. The pacing figure
// counts requests and 429s here, so it depends on neither the server's logging nor the CLI's
// verbosity: what crossed the wire is what counts.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * Which of the key's two limits refused a 429: with minute slots left (`X-RateLimit-Remaining` > 0)
 * only the per-second bucket can have; with none, the sliding minute did (msnap serve reports the
 * minute when both would refuse).
 */
export function refusingLimit(headers) {
  const remaining = Number(headers['x-ratelimit-remaining']);
  if (!Number.isFinite(remaining)) return 'unknown';
  return remaining > 0 ? 'burst (per second)' : `minute (${headers['x-ratelimit-limit']}/min)`;
}

/**
 * Start a proxy to `upstreamUrl` on 127.0.0.1:0; resolves to `{ url, log, close() }`. `delayMs`
 * holds each response that long before it is passed on (tests use it to interrupt a client mid-run).
 */
export function startRequestLogProxy(upstreamUrl, { delayMs = 0 } = {}) {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  /** One entry per request: when it arrived, when its response ended, path, status (and for a 429, the limit that refused). */
  const log = [];
  const server = http.createServer((req, res) => {
    const entry = { startMs: performance.now(), endMs: NaN, method: req.method, path: req.url, status: 0 };
    log.push(entry);
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (up) => setTimeout(() => {
        entry.status = up.statusCode ?? 0;
        if (entry.status === 429) entry.refusedBy = refusingLimit(up.headers);
        res.writeHead(entry.status, up.headers);
        up.pipe(res);
        up.on('end', () => { entry.endMs = performance.now(); });
      }, delayMs),
    );
    forward.on('error', (err) => {
      entry.status = 502;
      entry.endMs = performance.now();
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Bad Gateway', message: err.message }));
    });
    req.pipe(forward);
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        log,
        close: () => new Promise((res) => {
          agent.destroy();
          server.closeAllConnections?.();
          server.close(() => res());
        }),
      });
    });
  });
}
