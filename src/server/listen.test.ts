// The socket side in-process: timeouts, early refusals and the graceful close, over a memory store.
import { connect } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from './app.js';
import { startServer, type RunningServer } from './listen.js';
import { MemoryStore } from './test-support/memory-store.js';

const running: RunningServer[] = [];

async function start(extra: { headersTimeoutMs?: number; requestTimeoutMs?: number } = {}) {
  const store = new MemoryStore();
  store.addMarkets('BTC', '24hr', Date.UTC(2025, 0, 10), 2, 5000);
  store.addAccountWithKey({ name: 'p', plan: 'pro' }, 'key-pro');
  const server = await startServer({ app: createApp({ store, version: '1.0.0' }), host: '127.0.0.1', port: 0, timeoutCheckMs: 50, ...extra });
  running.push(server);
  return { server, store };
}

function rawSocket(server: RunningServer) {
  const socket = connect(server.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
  socket.on('error', () => {});
  return { socket, ended };
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

describe('startServer', () => {
  it('prints a usable URL for port 0 and answers over HTTP', async () => {
    const { server } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await request(`${server.url}/api/health`, { headers: { 'x-api-key': 'key-pro' } });
    expect(r.statusCode).toBe(200);
    expect(r.headers['x-ratelimit-limit']).toBe('750');
    expect(String(r.headers['content-length'])).toBe(String(Buffer.byteLength(await r.body.text())));
  });

  it('a client stalling in its headers gets 408 JSON and is disconnected', async () => {
    const { server } = await start({ headersTimeoutMs: 200, requestTimeoutMs: 300 });
    const { socket, ended } = rawSocket(server);
    socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n');
    const answer = await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/X-RateLimit-Limit: 30/);
    expect(answer).toContain('"error":"Request Timeout"');
  });

  it('garbage gets 400 JSON with the rate-limit headers', async () => {
    const { server } = await start();
    const { socket, ended } = rawSocket(server);
    socket.write('\x16\x03\x01\x00\xa5\x01\x00\x00\r\n\r\n');
    const answer = await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/X-RateLimit-Remaining: \d+/);
    expect(answer).toContain('"error":"Bad Request"');
  });

  it('close drains in-flight responses and closes idle keep-alive sockets; the store stays with its opener', async () => {
    const { server, store } = await start();
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const headers = { 'x-api-key': 'key-pro' };
    const warm = await request(`${server.url}/api/health`, { headers, dispatcher: agent });
    await warm.body.dump();
    const id = `btc-updown-24hr-${Date.UTC(2025, 0, 10) / 1000}`;
    const big = await request(`${server.url}/api/v1/markets/${id}/snapshots?limit=5000`, { headers, dispatcher: agent });
    const closing = server.close();
    const body = (await big.body.json()) as { snapshots: unknown[] };
    expect(body.snapshots).toHaveLength(5000);
    const started = Date.now();
    await closing;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(store.closed).toBe(false);
    await expect(request(`${server.url}/api/health`, { headers })).rejects.toThrow();
    await agent.close();
  });

  it('a client that disconnects mid-response does not hurt the server', async () => {
    const { server } = await start();
    const id = `btc-updown-24hr-${Date.UTC(2025, 0, 10) / 1000}`;
    for (let i = 0; i < 5; i++) {
      const { socket } = rawSocket(server);
      socket.write(`GET /api/v1/markets/${id}/snapshots?limit=5000 HTTP/1.1\r\nHost: x\r\nX-API-Key: key-pro\r\n\r\n`);
      await new Promise<void>((resolve) => socket.once('data', () => resolve()));
      socket.destroy();
    }
    const r = await request(`${server.url}/api/health`, { headers: { 'x-api-key': 'key-pro' } });
    expect(r.statusCode).toBe(200);
    await r.body.dump();
  });
});
