// `msnap watch` over the fake client core: its arguments, the formats it writes (a table that
// grows a row at a time on a terminal), and Ctrl-C ending it with the output complete.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import type { CliContext } from '../context.js';
import { fakeClient, fakeContext, market, runFake } from '../test-support/fake-cli.js';
import { parseWatchArgs, runWatch } from './watch.js';
import { SnapshotCursor } from '../../client/watch/watch-cursor.js';
import { liveTable } from '../output/terminal/live-table.js';
import { snapshotSchema } from '../output/schemas/record-schemas.js';
import type { ClientFactory } from '../deps.js';
import type { StreamEvent } from '../../client/watch/stream-events.js';
import { snapshotsOf } from '../test-support/fake-cli.js';

const T = Date.UTC(2025, 10, 22, 0, 0);
const KEY = { apiKey: 'msk_test_0123456789abcdef' };
const ID = 'btc-updown-5m-1763769600';

describe('parseWatchArgs', () => {
  it('takes a market id or COIN TYPE, the mode and an interval', () => {
    expect(parseWatchArgs(ID.toUpperCase(), undefined, {})).toEqual({ target: { marketId: ID }, follow: false, orderbook: false, mode: 'auto' });
    expect(parseWatchArgs('eth', '1h', { follow: true, poll: true, interval: '1500ms', orderbook: true })).toEqual({
      target: { coin: 'ETH', marketType: '1hr' },
      follow: true,
      orderbook: true,
      mode: 'poll',
      intervalMs: 1500,
    });
    expect(parseWatchArgs('BTC', '5m', { stream: true }).mode).toBe('stream');
    expect(parseWatchArgs('BTC', '5m', { interval: '2m' }).intervalMs).toBe(120_000);
  });

  it.each([
    [['BTC', '5x', {}], /unknown market type '5x'/],
    [['BTC', undefined, {}], /'BTC' needs a market type/],
    [[ID, '5m', {}], /a market id takes no market type/],
    [['BTC', '5m', { stream: true, poll: true }], /exclude each other/],
    [['BTC', '5m', { stream: true, interval: '2s' }], /does not go with --stream/],
    [['BTC', '5m', { interval: '0.5s' }], /--interval must be from 1s to 60m/],
    [['BTC', '5m', { interval: 'soon' }], /--interval must be/],
  ] as const)('refuses %j', (args, message) => {
    expect(() => parseWatchArgs(args[0], args[1], args[2])).toThrow(UsageError);
    expect(() => parseWatchArgs(args[0], args[1], args[2])).toThrow(message);
  });
});

describe('SnapshotCursor', () => {
  const s = (id: number, time: number) => ({ id, market_id: ID, time, price: 1, price_up: 0.5, price_down: 0.5 });
  it('hands each snapshot on once across overlapping sources, including ones sharing a millisecond', () => {
    const c = new SnapshotCursor();
    expect(c.take([s(1, 100), s(2, 200), s(3, 200)]).map((x) => x.id)).toEqual([1, 2, 3]);
    // A poll from time 200 (inclusive) repeats 2 and 3; 4 shares their millisecond.
    expect(c.take([s(2, 200), s(3, 200), s(4, 200), s(5, 300)]).map((x) => x.id)).toEqual([4, 5]);
    expect(c.take([s(1, 100), s(5, 300)])).toEqual([]);
    expect(c.lastTime).toBe(300);
  });
});

describe('liveTable', () => {
  it('prints the header once and each row as it comes, in plain columns fitted to the width', () => {
    const render = liveTable(snapshotSchema(false), 60, () => undefined);
    const first = render([s(T)]);
    const later = render([s(T + 125)]);
    // market_id is the first to go on a narrow terminal.
    expect(first.split('\n')[0]).toMatch(/^id\s+time\s+price\s+price_up\s+price_down$/);
    expect(first.split('\n')[1]).toMatch(/^1\s+2025-11-22T00:00:00\.000Z\s+100\s+0\.5\s+0\.5$/);
    expect(later).toMatch(/^1\s+2025-11-22T00:00:00\.125Z\s+100\s+0\.5\s+0\.5\n$/);
    expect(Math.max(...(first + later).split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
    function s(time: number) {
      return { id: 1, market_id: ID, time, price: 100, price_up: 0.5, price_down: 0.5 };
    }
  });
});

describe('runWatch', () => {
  it('writes a resolved market once as NDJSON and ends', async () => {
    const { ctx, stdout, stderr } = fakeContext();
    const { factory, calls } = fakeClient([market('BTC', '5m', T, 3)]);
    await runFake(ctx, KEY, factory, (deps) => runWatch(parseWatchArgs(ID, undefined, {}), deps));
    expect(stdout.text().trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3]);
    expect(stderr.text()).toMatch(/^msnap: watching btc-updown-5m-1763769600 \(polling\), ends 2025-11-22T00:05:00.000Z\n/);
    expect(stderr.text()).toMatch(/msnap: 3 snapshots of 1 market written to stdout/);
    expect(calls.snapshots).toHaveLength(1);
  });

  it('on a terminal, a live table', async () => {
    const { ctx, stdout } = fakeContext({ stdoutTTY: true });
    const { factory } = fakeClient([market('BTC', '5m', T, 2)]);
    await runFake(ctx, KEY, factory, (deps) => runWatch(parseWatchArgs(ID, undefined, {}), deps));
    expect(stdout.text().split('\n').slice(0, 3).map((l) => l.split(/\s+/)[0])).toEqual(['id', '1', '2']);
    expect(stdout.text()).not.toMatch(/[┌│]/);
  });

  it('Ctrl-C ends a market still open with the output complete (a JSON array closed)', async () => {
    const { ctx, stdout } = fakeContext();
    const open = { ...market('BTC', '5m', T, 3), status: 'active' as const };
    const { factory } = fakeClient([open]);
    let stop: (() => void) | undefined;
    let sleeps = 0;
    const context: CliContext = {
      ...ctx,
      onStop: (s) => {
        stop = s;
        return () => (stop = undefined);
      },
      // Each poll waits here; the third wait is interrupted.
      sleep: async () => {
        if (++sleeps === 3) stop?.();
      },
    };
    await runFake(context, { ...KEY, json: true }, factory, (deps) => runWatch(parseWatchArgs(ID, undefined, {}), deps));
    expect((JSON.parse(stdout.text()) as { id: number }[]).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(stop).toBeUndefined();
  });

  it('a series with no active market, without --follow, is not found', async () => {
    const { ctx } = fakeContext();
    const { factory } = fakeClient([market('BTC', '5m', T, 3)]);
    await expect(runFake(ctx, KEY, factory, (deps) => runWatch(parseWatchArgs('BTC', '5m', {}), deps))).rejects.toThrow(/no BTC 5m market is active now/);
  });
});

describe('runWatch with a stream', () => {
  // The fake client with a stream that hands over `events`, then waits (or answers the last one).
  function withStream(factory: ClientFactory, events: StreamEvent[]): { factory: ClientFactory; closed: () => boolean } {
    let closed = false;
    return {
      closed: () => closed,
      factory: async (conn, hooks) => {
        const client = await factory(conn, hooks);
        return {
          ...client,
          capabilities: () => ({
            stream: {
              openStream: async () => ({
                stream: {
                  next: () => (events.length > 1 || events[0]?.type === 'closed' || events[0]?.type === 'end' ? Promise.resolve(events.length > 1 ? events.shift()! : events[0]!) : new Promise<StreamEvent>(() => undefined)),
                  get buffered() {
                    return events.length > 1 ? events.length - 1 : 0;
                  },
                  close: () => void (closed = true),
                },
              }),
            },
          }),
        };
      },
    };
  }
  const open = { ...market('BTC', '5m', T, 3), status: 'active' as const };
  const rows = snapshotsOf(open);

  it('history by HTTP, then frames (each row once), until market_resolved', async () => {
    const { ctx, stdout, stderr } = fakeContext();
    const later = { ...rows[2]!, id: 4, time: rows[2]!.time + 125 };
    const { factory, closed } = withStream(fakeClient([open]).factory, [
      { type: 'snapshot', snapshot: rows[2]! },
      { type: 'snapshot', snapshot: later },
      { type: 'market_resolved', market: { ...open, status: 'resolved' } },
      { type: 'closed', code: 1000, reason: '' },
    ]);
    await runFake(ctx, KEY, factory, (deps) => runWatch(parseWatchArgs(ID, undefined, {}), deps));
    expect(stdout.text().trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3, 4]);
    expect(stderr.text()).toMatch(/\(live stream\)/);
    expect(closed()).toBe(true);
  });

  it('a stream that closes midway (4002) hands over to polling with a note', async () => {
    const { ctx, stdout, stderr } = fakeContext();
    const { factory } = withStream(fakeClient([open]).factory, [{ type: 'snapshot', snapshot: rows[0]! }, { type: 'closed', code: 4002, reason: 'too slow' }]);
    let stop: (() => void) | undefined;
    let sleeps = 0;
    const context: CliContext = {
      ...ctx,
      onStop: (s) => ((stop = s), () => (stop = undefined)),
      sleep: async () => {
        if (++sleeps === 2) stop?.();
      },
    };
    await runFake(context, KEY, factory, (deps) => runWatch(parseWatchArgs(ID, undefined, {}), deps));
    expect(stdout.text().trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2, 3]);
    expect(stderr.text()).toMatch(/msnap: note: the stream closed \(4002 too slow\); polling from here\n/);
  });

  it("a replay's end ends the watch with a note", async () => {
    const { ctx, stderr } = fakeContext();
    const { factory } = withStream(fakeClient([open]).factory, [{ type: 'end' }]);
    await runFake(ctx, KEY, factory, (deps) => runWatch(parseWatchArgs('BTC', '5m', {}), deps));
    expect(stderr.text()).toMatch(/msnap: note: the replay has ended: no more snapshots will come\n/);
    expect(stderr.text()).toMatch(/3 snapshots of 1 market/);
  });
});
