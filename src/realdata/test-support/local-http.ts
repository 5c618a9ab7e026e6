// A real HTTP server on a free local port for the source readers' tests: the requests they make
// go over a socket, as they would to Gamma or Binance.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server: its base URL, every request path it received, and how many were in flight at most. */
export interface LocalHttp {
  base: string;
  paths: string[];
  maxInFlight: number;
  close(): Promise<void>;
}

/** Use in a test to answer requests with `handle` (sync or async) on 127.0.0.1 and a port of the system's choosing. */
export async function localHttp(handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<LocalHttp> {
  let inFlight = 0;
  const server = createServer((req, res) => {
    state.paths.push(req.url ?? '');
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    Promise.resolve(handle(req, res)).catch((err: unknown) => {
      res.statusCode = 599;
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: LocalHttp = {
    base: `http://127.0.0.1:${port}`,
    paths: [],
    maxInFlight: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

/** Use to answer JSON. */
export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Test options for the source GETs: no real waiting between retries, fixed jitter. */
export const FAST_RETRY = { sleep: async () => {}, random: () => 0.5 } as const;
