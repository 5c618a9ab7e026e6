// The listener's writes to readers that do not read, over real sockets: an app stub answers a
// 24 MB body, the budget is 1 MB, a stalled answer is dropped after 300 ms.
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { App, AppResponse } from './app.js';
import { startServer, type RunningServer } from './listen.js';

// Larger than loopback's socket buffers take without a reader.
const BIG = 'x'.repeat(24 * 1024 * 1024);
const running: RunningServer[] = [];
const sockets: Socket[] = [];

function answer(status: number, body: string, extra: Record<string, string> = {}): AppResponse {
  return { status, headers: { 'Content-Type': 'text/plain', ...extra }, body };
}

const app: App = {
  handle: async (req) => answer(200, req.url === '/big' ? BIG : 'small'),
  reject: async (status) => answer(status, 'rejected'),
  busy: async () => answer(503, 'busy', { 'Retry-After': '2' }),
  keyUsage: async () => ({ used: 0, limit: 0 }),
};

async function start(): Promise<RunningServer> {
  const server = await startServer({ app, host: '127.0.0.1', port: 0, responseLimits: { totalBytes: 1024 * 1024, stallMs: 300, queuedPerConnection: 2 } });
  running.push(server);
  return server;
}

/** A client that asks for `requests` and never reads; `closed` resolves if it learns the server closed the connection. */
function nonReader(server: RunningServer, requests: string): { closed: Promise<void>; socket: Socket } {
  const socket = connect(server.port, '127.0.0.1', () => socket.write(requests));
  socket.on('error', () => {});
  sockets.push(socket);
  return { socket, closed: new Promise((resolve) => socket.on('close', () => resolve())) };
}

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

describe('answers to readers that do not read', () => {
  it('a stalled answer holds the budget (others get 503 + Retry-After), is dropped after the stall timeout, and the budget is free again', async () => {
    const server = await start();
    const stalled = nonReader(server, 'GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
    await expect.poll(async () => {
      const r = await request(`${server.url}/small`);
      await r.body.dump();
      return [r.statusCode, r.headers['retry-after']];
    }).toEqual([503, '2']);
    // Dropped after 300 ms without progress (the client, never reading, may not even notice).
    await expect.poll(async () => {
      const r = await request(`${server.url}/small`);
      await r.body.dump();
      return r.statusCode;
    }).toBe(200);
    expect(stalled.socket.bytesWritten).toBeGreaterThan(0);
    const r = await request(`${server.url}/big`);
    expect(r.statusCode).toBe(200);
    expect((await r.body.text()).length).toBe(BIG.length);
  });

  it('answers pipelined requests one at a time and in order, also more than it lets wait at once', async () => {
    const server = await start();
    const socket = connect(server.port, '127.0.0.1', () => socket.write('GET /small HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(50)));
    sockets.push(socket);
    let text = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (d) => {
        text += d.toString('latin1');
        if (text.split('HTTP/1.1 200').length - 1 === 50) resolve();
      });
    });
    expect(text.match(/\r\n\r\nsmall/g)).toHaveLength(50);
  });
});
