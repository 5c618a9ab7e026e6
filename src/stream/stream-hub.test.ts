// The stream hub on a real port with a real WebSocket client, its clocks held by the test: the
// wall clock (pings, idleness) and the data clock (what is visible) move only when the test moves
// them, and each tick runs when the test calls it. Nothing sleeps.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openStream, type Recorded } from '../../test/support/stream-client.js';
import { until } from '../../test/support/until.js';
import { hashApiKey } from '../accounts/api-key.js';
import { LocalLimiter } from '../ratelimit/shared-limiter.js';
import { replayClock } from '../replay/server-clock.js';
import { createApp } from '../server/app.js';
import { startServer, type RunningServer } from '../server/listen.js';
import { btc24, NEWEST_24H, T0 } from '../server/test-support/test-app.js';
import { fixtureStore } from '../server/test-support/fixture.js';
import { StreamHub } from './stream-hub.js';
import { WindowRanks } from './window-ranks.js';
import { FeedEvent } from './visible-feed.js';

const running: { server: RunningServer; hub: StreamHub }[] = [];

/** A hub over the fixture, its data clock at `data.now` (a replay that ends at `until`), its wall at `wall.t`. */
async function start(until = NEWEST_24H + 10_000) {
  const store = fixtureStore();
  const wall = { t: T0 };
  const data = { now: NEWEST_24H - 1000 };
  const clock = replayClock({ from: data.now, until, speed: 1, wall: () => 0 });
  const limiter = new LocalLimiter();
  const hub = new StreamHub({
    store,
    clock,
    visibleThrough: () => Math.min(data.now, until),
    wall: () => wall.t,
    limiter,
    hashKey: hashApiKey,
    log: () => undefined,
    every: () => () => undefined,
  });
  hub.start();
  const app = createApp({ store, limiter, version: '1.0.0' });
  const server = await startServer({ app, host: '127.0.0.1', port: 0, upgrade: hub.upgrade });
  running.push({ server, hub });
  return { server, hub, wall, data, store };
}

async function subscribed(url: string, frame = '{"type":"subscribe"}'): Promise<Recorded> {
  const s = openStream(url, { token: 'key-pro' });
  await s.opened;
  s.ws.send(frame);
  await s.next('subscribed');
  return s;
}

afterEach(async () => {
  for (const { server, hub } of running.splice(0)) await Promise.all([hub.close(), server.close()]);
});

describe('StreamHub', () => {
  it('pings every 25 s of wall time and closes a client silent for 60 s with 4000; any frame keeps it', async () => {
    const { server, hub, wall } = await start();
    const quiet = await subscribed(server.url);
    const talker = await subscribed(server.url);
    wall.t += 25_000;
    await hub.tick();
    await quiet.next('ping');
    await talker.next('ping');
    talker.ws.send('{"type":"pong"}');
    // Frames are read in order: once the answer to this one is back, the pong was read.
    talker.ws.send('{"type":"nonsense"}');
    await talker.next('error');
    wall.t += 35_000;
    await hub.tick();
    expect((await quiet.waitClosed()).code).toBe(4000);
    expect(quiet.frames.filter((f) => f.type === 'ping')).toHaveLength(1);
    await until(() => talker.frames.filter((f) => f.type === 'ping').length === 2, 'the second ping');
    expect(talker.closed).toBeUndefined();
    expect(hub.size).toBe(1);
  });

  it('sends snapshots in time order as the data clock moves, and end once the replay stops', async () => {
    const { server, hub, data } = await start(NEWEST_24H + 1000);
    const s = await subscribed(server.url, '{"type":"subscribe","coins":["BTC"],"market_types":["24hr"]}');
    data.now = NEWEST_24H + 500;
    await hub.tick();
    const open = await s.next('market_open');
    expect(open.market).toMatchObject({ market_id: btc24(0), status: 'active', winner: null });
    await until(() => s.frames.filter((f) => f.type === 'snapshot').length === 5, 'five snapshots');
    data.now = NEWEST_24H + 2000;
    await hub.tick();
    await s.next('end');
    const times = s.frames.filter((f) => f.type === 'snapshot').map((f) => (f.snapshot as { time: number }).time);
    expect(times).toEqual([0, 125, 250, 375, 500, 625, 750, 875, 1000].map((t) => NEWEST_24H + t));
    // A later subscriber learns the replay is over at once.
    const late = await subscribed(server.url);
    await late.next('end');
  });

  it('closes the streams of a key revoked while they are open (1008) within 30 s', async () => {
    const { server, hub, wall, store } = await start();
    const s = await subscribed(server.url);
    const record = (await store.findKeyByHash(hashApiKey('key-pro')))!;
    await store.revokeKey(record.id, wall.t);
    wall.t += 29_000;
    await hub.tick();
    s.ws.send('{"type":"pong"}');
    wall.t += 1_000;
    await hub.tick();
    expect(await s.waitClosed()).toMatchObject({ code: 1008 });
    expect(s.closed!.reason).toMatch(/revoked/);
  });

  it('a stream that has not subscribed gets nothing but pings', async () => {
    const { server, hub, data } = await start();
    const s = openStream(server.url, { token: 'key-pro' });
    await s.opened;
    data.now = NEWEST_24H + 500;
    await hub.tick();
    const probe = await subscribed(server.url);
    data.now = NEWEST_24H + 1000;
    await hub.tick();
    await probe.next('snapshot', (f) => (f.snapshot as { time: number }).time === NEWEST_24H + 1000);
    expect(s.frames).toEqual([]);
  });
});

describe('StreamHub refusals', () => {
  it('answers a bad key with a v1 401 before upgrading, and closes the socket even if the client never does', async () => {
    const { server } = await start();
    const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    const answered = new Promise<void>((resolve) => socket.on('end', () => resolve()));
    socket.write('GET /v1/stream?token=nope HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    await answered;
    // Our side stays open (allowHalfOpen): the server lets go of the socket by itself.
    const open = () => new Promise<number>((resolve) => server.server.getConnections((_err, n) => resolve(n)));
    await until(async () => (await open()) === 0, 'the server to drop the refused socket', 5000, 50);
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(text).toContain('X-RateLimit-Limit: 30');
    expect(text).toContain('{"error":"Unauthorized","message":"Invalid API key."}');
  });
});

describe('WindowRanks', () => {
  it('a builder sees only the 14 newest 24hr markets that have started', async () => {
    const ranks = new WindowRanks(fixtureStore());
    const event = (rank: number) => new FeedEvent('snapshot', NEWEST_24H + 1, { market_id: btc24(rank), coin: 'BTC', market_type: '24hr', start_time: NEWEST_24H - rank * 86_400_000 }, {});
    const events = [event(0), event(13), event(14)];
    await ranks.prepare(events, NEWEST_24H + 1);
    const window = { '5m': 4100, '15m': 1400, '1hr': 350, '4hr': 85, '24hr': 14 };
    expect(events.map((e) => ranks.inWindow(e.market, window))).toEqual([true, true, false]);
    // Before btc24(0) started, btc24(14) is the 14th newest.
    const before = new WindowRanks(fixtureStore());
    await before.prepare(events, NEWEST_24H - 1);
    expect(before.inWindow(events[2]!.market, window)).toBe(true);
  });
});
