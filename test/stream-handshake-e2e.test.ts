// End to end: refused WebSocket handshakes on GET /v1/stream against the built `msnap serve`, with
// its stream slots in the process and in Redis. A handshake ws would refuse (an HTTP/2 upgrade as
// `curl --http2` sends, no Sec-WebSocket-Key, a wrong version, a POST) is a clear v1 error and
// takes no slot; nor does a client that vanishes mid-handshake: afterwards the key still opens
// every stream its plan allows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, createKey, parseRawResponses, rawExchange, seed, startServe, type Served } from './support/msnap-process.js';
import { openStream, type Recorded } from './support/stream-client.js';
import { redisAvailable, ThrowawayRedis } from './support/throwaway-redis.js';
import { until } from './support/until.js';

/** A pro key's open streams (PLANS.pro.maxStreamsPerKey). */
const PRO_STREAMS = 10;
const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

let dir: string;
let db: string;
let pro: string;
let redis: ThrowawayRedis | undefined;
const servers: Served[] = [];

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-handshake-'));
  db = path.join(dir, 'h.db');
  await seed(db);
  pro = await createKey(db, 'handshakes', 'pro');
  if (redisAvailable()) redis = await ThrowawayRedis.start();
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await redis?.destroy();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Upgrade requests ws would refuse, as some clients really send them. */
function badUpgrades(port: number, key: string): { name: string; request: string; status: number; says: RegExp }[] {
  const head = `Host: 127.0.0.1:${port}\r\nX-API-Key: ${key}`;
  return [
    { name: 'curl --http2', request: `GET /v1/stream HTTP/1.1\r\n${head}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n`, status: 400, says: /upgrade to "h2c"/ },
    { name: 'no Sec-WebSocket-Key', request: `GET /v1/stream HTTP/1.1\r\n${head}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`, status: 400, says: /Sec-WebSocket-Key/ },
    { name: 'a short Sec-WebSocket-Key', request: `GET /api/v1/stream HTTP/1.1\r\n${head}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\n\r\n`, status: 400, says: /Sec-WebSocket-Key/ },
    { name: 'version 12', request: `GET /v1/stream HTTP/1.1\r\n${head}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 12\r\n\r\n`, status: 400, says: /Sec-WebSocket-Version/ },
    { name: 'a POST', request: `POST /v1/stream HTTP/1.1\r\n${head}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n`, status: 405, says: /opened with GET/ },
  ];
}

describe.each([
  { limiter: 'in the process', args: () => [] as string[] },
  { limiter: 'in Redis', args: () => ['--limiter', redis!.url] },
])('refused handshakes with the stream slots $limiter', ({ limiter, args }) => {
  it.skipIf(limiter === 'in Redis' && !redisAvailable())('answer each with a clear error and leave every slot free', async () => {
    const s = await startServe(db, { args: ['--replay', '2h', '--speed', '1', ...args()] });
    servers.push(s);
    // Twice each kind: more refusals than the key has slots.
    for (const bad of [...badUpgrades(s.port, pro), ...badUpgrades(s.port, pro)]) {
      const [answer] = parseRawResponses((await rawExchange(s.port, bad.request, { waitMs: 5000 })).text);
      expect(answer?.status, bad.name).toBe(bad.status);
      expect(answer!.headers['content-type'], bad.name).toMatch(/^application\/json/);
      expect(answer!.headers['x-ratelimit-limit'], bad.name).toBeDefined();
      expect(JSON.parse(answer!.body).message, bad.name).toMatch(bad.says);
    }
    // Clients that send a good handshake and vanish before (or just after) the answer.
    for (let i = 0; i < 3; i++) {
      await rawExchange(s.port, `GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${pro}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`, { waitMs: i * 20 });
    }
    // Every slot is free again (a vanished client's slot as soon as its close is seen).
    const streams: Recorded[] = [];
    await until(async () => {
      const opened = openStream(s.url, { token: pro });
      await opened.opened;
      await new Promise((r) => setTimeout(r, 50));
      if (opened.closed?.code === 4008) return false;
      streams.push(opened);
      return streams.length === PRO_STREAMS;
    }, `${PRO_STREAMS} streams`, 10_000);
    for (const st of streams) st.ws.send('{"type":"subscribe","coins":["BTC"]}');
    await Promise.all(streams.map((st) => st.next('subscribed')));
    expect(streams.every((st) => st.closed === undefined)).toBe(true);
    // The plan's cap still holds.
    const extra = openStream(s.url, { token: pro });
    await extra.opened;
    expect((await extra.waitClosed()).code).toBe(4008);
    for (const st of streams) st.ws.close();
  }, 60_000);
});
