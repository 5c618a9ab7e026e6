// API POST bodies over a real socket: read with a 16 KiB cap before the app runs, refused with 413
// (after credentials) and the connection closed, a keep-alive connection going on after a normal one.
import { connect } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { startServer, type RunningServer } from './listen.js';
import { MAX_JSON_BYTES } from './request-body.js';
import { openBackendStore, removeBackendFiles } from './test-support/backends.js';
import { btc24, NEWEST_24H } from './test-support/fixture.js';

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});
afterAll(removeBackendFiles);

async function start(): Promise<RunningServer> {
  const store = await openBackendStore('sqlite');
  // The data clock just after btc24(0)'s first book (it is then active).
  const at = NEWEST_24H + 200;
  const clock = { now: () => at, read: () => ({ now: at, speed: 1, mode: 'static' as const, until: null }) };
  const server = await startServer({ app: createApp({ store, clock, version: '1.0.0', log: () => undefined }), host: '127.0.0.1', port: 0 });
  running.push(server);
  return server;
}

/** Writes `text` on a fresh socket and collects everything until the server closes it or `ms` pass. */
function exchange(server: RunningServer, text: string, ms = 3000): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: got, closed: false });
    }, ms);
    socket.on('data', (d: Buffer) => (got += d.toString('utf8')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: got, closed: true });
    });
    socket.on('error', () => {});
    socket.write(text);
  });
}

const order = JSON.stringify({ market_id: btc24(0), side: 'up', action: 'buy', shares: 1 });
const post = (path: string, body: string, key = 'key-pro', extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe('API POST bodies', () => {
  it('refuses a body past the cap with 413 and closes the connection', async () => {
    const server = await start();
    const big = 'x'.repeat(MAX_JSON_BYTES + 1);
    const answer = await exchange(server, post('/v1/paper/orders', big));
    expect(answer.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer.text).toContain('"error":"Payload Too Large"');
    expect(answer.closed).toBe(true);
  });

  it('refuses a chunked body once it passes the cap', async () => {
    const server = await start();
    const chunk = 'y'.repeat(4096);
    const chunks = Array.from({ length: 6 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('') + '0\r\n\r\n';
    const head = `POST /v1/paper/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: key-pro\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const answer = await exchange(server, head + chunks);
    expect(answer.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.closed).toBe(true);
  });

  it('checks credentials before the body', async () => {
    const server = await start();
    const answer = await exchange(server, post('/v1/paper/orders', 'x'.repeat(MAX_JSON_BYTES + 1), 'wrong'));
    expect(answer.text).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('answers pipelined requests on one keep-alive connection after a POST', async () => {
    const server = await start();
    const get = 'GET /v1/paper/account HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: key-pro\r\nConnection: close\r\n\r\n';
    const answer = await exchange(server, post('/v1/paper/orders', order) + post('/v1/paper/orders', '{"side":') + get);
    const statuses = [...answer.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    expect(statuses).toEqual([201, 400, 200]);
    expect(answer.text).toContain('"positions":[{"market_id":"' + btc24(0) + '","side":"up","shares":1');
  });
});
