// The page fetched ahead is read only when wanted; if its body never arrives (the connection
// drops mid-body), the page is fetched again and the export loses nothing. A real HTTP server on
// port 0 plays the service.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MsnapClient } from './client.js';

const ID = 'btc-updown-5m-1763769600';
const ROWS = 25;

function snapshot(i: number) {
  return { id: i, market_id: ID, time: 1_763_769_600_000 + i * 125, price: 97_000 + i, price_up: 0.5, price_down: 0.5 };
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

/** Serves ROWS snapshots in pages; the first time the page at `cutAt` is asked, its body stops half way. */
async function serve(cutAt: number): Promise<{ url: string; asked: number[] }> {
  const asked: number[] = [];
  let cut = false;
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/api/v1/limits') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not Found"}');
      return;
    }
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 10);
    asked.push(offset);
    const rows = Array.from({ length: Math.max(0, Math.min(limit, ROWS - offset)) }, (_, k) => snapshot(offset + k));
    const body = JSON.stringify({ market: null, snapshots: rows, total: ROWS, limit, offset });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    if (offset === cutAt && !cut) {
      cut = true;
      res.write(body.slice(0, body.length >> 1));
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.end(body);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, asked };
}

describe('snapshot pages fetched ahead', () => {
  it('are fetched again when their body is cut off, so every row arrives once and in order', async () => {
    const svc = await serve(10);
    const c = new MsnapClient({ baseUrl: svc.url, apiKey: 'msk_test', pacing: false, sleep: async () => {} });
    try {
      const ids: number[] = [];
      for await (const page of c.snapshotPages(ID, { pageSize: 10 })) for (const s of page) ids.push(s.id);
      expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i));
      // The cut page was asked twice; no other page was.
      expect(svc.asked.filter((o) => o === 10)).toHaveLength(2);
      expect(svc.asked.filter((o) => o !== 10).sort((a, b) => a - b)).toEqual([0, 20]);
    } finally {
      await c.close();
    }
  });
});
