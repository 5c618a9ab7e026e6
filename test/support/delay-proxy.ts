// A loopback pass-through proxy that delays every request on its way in and every answer on its
// way out by a random time, and records what crossed it: a jittery network between real
// processes, with the wire as the witness of 429s.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One request as the proxy saw it (performance.now() ms). */
export interface ProxiedRequest {
  path: string;
  status: number;
  start: number;
  end: number;
}

/** A running proxy: its URL, its log, and how to stop it. */
export interface DelayProxy {
  url: string;
  log: ProxiedRequest[];
  close(): Promise<void>;
}

/** Use to put a random delay (`delayMs()` each way) between clients and `upstreamUrl`. */
export function startDelayProxy(upstreamUrl: string, delayMs: () => number): Promise<DelayProxy> {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const log: ProxiedRequest[] = [];
  const server = http.createServer((req, res) => {
    const entry: ProxiedRequest = { path: req.url ?? '', status: 0, start: performance.now(), end: NaN };
    log.push(entry);
    setTimeout(() => {
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
        (up) => {
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            entry.status = up.statusCode ?? 0;
            setTimeout(() => {
              res.writeHead(entry.status, up.headers);
              res.end(Buffer.concat(chunks));
              entry.end = performance.now();
            }, delayMs());
          });
        },
      );
      forward.on('error', (err) => {
        entry.status = 502;
        entry.end = performance.now();
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Bad Gateway', message: err.message }));
      });
      // The CLI only sends GETs: no body to carry.
      forward.end();
    }, delayMs());
  });
  return new Promise((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        log,
        close: () =>
          new Promise((done) => {
            agent.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
