// The run functions of every client command over a fake client core: what they ask the
// service, what they write, and how they fail.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WindowEnd } from '../../client/types.js';
import { AuthError, NotFoundError, UsageError } from '../../errors.js';
import { KEY_ROTATION_MS } from '../../domain/plans.js';
import { fakeClient, fakeContext, market, runFake } from '../test-support/fake-cli.js';
import { parseAtArgs, runAt } from './at.js';
import { runHealth } from './health.js';
import { runKeysAdd, runKeysList, runKeysRemove, runKeysUse } from './keys.js';
import { runLimits } from './limits.js';
import { parseMarketsFlags, runMarkets } from './markets.js';
import { parseSnapshotsArgs, runSnapshots } from './snapshots.js';
import { runMain } from '../main.js';

const NOW = Date.UTC(2025, 10, 22, 12);
const T = Date.UTC(2025, 10, 22, 0, 0);
const FIVE = 5 * 60_000;
// Newest BTC 5m market has no snapshots yet: `snapshots BTC 5m` must skip it.
const MARKETS = [
  market('BTC', '5m', T, 3),
  market('BTC', '5m', T + FIVE, 2),
  market('BTC', '5m', T + 2 * FIVE, 4),
  market('BTC', '5m', T + 3 * FIVE, 0),
  market('ETH', '5m', T, 5),
];
const KEY = { apiKey: 'msk_test_0123456789abcdef' };
const ANSI = /\u001b\[/;

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

describe('markets', () => {
  it('passes filters to the client and writes NDJSON when piped', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    const opts = parseMarketsFlags({ coin: 'btc', type: '5M', limit: '2', offset: '1', from: '1763769600000' }, NOW);
    await runFake(ctx, KEY, factory, (deps) => runMarkets(opts, deps));
    expect(calls.markets).toEqual([
      { coin: 'BTC', marketType: '5m', startTime: 1763769600000, offset: 1, max: 2 },
    ]);
    const rows = lines(stdout.text()).map((l) => JSON.parse(l) as { market_id: string });
    expect(rows.map((r) => r.market_id)).toEqual(['btc-updown-5m-1763770200', 'btc-updown-5m-1763769900']);
    expect(calls.closed).toBe(1);
  });

  it('writes CSV with the contract header, and --all asks for every market', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    await runFake(ctx, { ...KEY, csv: true }, factory, (deps) =>
      runMarkets(parseMarketsFlags({ coin: 'ETH', all: true }, NOW), deps),
    );
    expect(calls.markets[0]).toEqual({ coin: 'ETH', all: true, onWindowEnd: expect.any(Function) });
    expect(stdout.text()).toBe(
      'market_id,slug,coin,market_type,status,start_time,end_time,price_start,price_end,winner,snapshot_count\n' +
        'eth-updown-5m-1763769600,eth-updown-5m-1763769600,ETH,5m,resolved,1763769600000,1763769900000,100,101,Up,5\n',
    );
  });

  it('refuses bad flags before any request', () => {
    expect(() => parseMarketsFlags({ coin: 'XRP' }, NOW)).toThrow('XRP is coming soon; available: BTC, ETH, SOL');
    expect(() => parseMarketsFlags({ type: '2m' }, NOW)).toThrow(UsageError);
    expect(() => parseMarketsFlags({ status: 'open' }, NOW)).toThrow(/active, resolved/);
    expect(() => parseMarketsFlags({ limit: '0' }, NOW)).toThrow(/--limit/);
    expect(() => parseMarketsFlags({ offset: '-3' }, NOW)).toThrow(/--offset/);
    expect(() => parseMarketsFlags({ all: true, limit: '5' }, NOW)).toThrow(/--all/);
    expect(() => parseMarketsFlags({ from: '1h', to: '2h' }, NOW)).toThrow(/must be before --to/);
  });

  it('passes the service warning to stderr as one line', async () => {
    const { ctx, stderr } = fakeContext();
    const { factory } = fakeClient(MARKETS, { warnOnMarkets: 'limit clamped to 1000' });
    await runFake(ctx, KEY, factory, (deps) => runMarkets(parseMarketsFlags({}, NOW), deps));
    expect(stderr.text()).toBe('msnap: warning: limit clamped to 1000\n');
  });

  it('--all cut at the data window prints one note with the plan, the cap and an upgrade hint', async () => {
    const { ctx, stdout, stderr } = fakeContext();
    const windowEnd: WindowEnd = { message: 'limit clamped to 104.', plan: 'builder', cap: 4100, marketType: '5m' };
    const { factory } = fakeClient(MARKETS, { windowEnd });
    await runFake(ctx, KEY, factory, (deps) => runMarkets(parseMarketsFlags({ all: true, coin: 'BTC', type: '5m' }, NOW), deps));
    expect(stderr.text()).toBe(
      'msnap: note: builder plan: only the most recent 4,100 5m markets are listed (upgrade to Pro for the full history)\n',
    );
    expect(stdout.text().trim().split('\n')).toHaveLength(4);
  });

  it('--all cut at the window with the plan unknown (no /limits) names the service\'s words', async () => {
    const { ctx, stderr } = fakeContext();
    const { factory } = fakeClient(MARKETS, { windowEnd: { message: 'Your plan only includes the most recent 4,100 5m markets.' } });
    await runFake(ctx, KEY, factory, (deps) => runMarkets(parseMarketsFlags({ all: true }, NOW), deps));
    expect(stderr.text()).toBe(
      "msnap: note: the listing stops at your plan's data window: Your plan only includes the most recent 4,100 5m markets.\n",
    );
  });

  it('fails with an AuthError and makes no client when no key is configured', async () => {
    const { ctx } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    await expect(runFake(ctx, {}, factory, (deps) => runMarkets(parseMarketsFlags({}, NOW), deps))).rejects.toThrow(
      AuthError,
    );
    expect(calls.connections).toEqual([]);
  });
});

describe('snapshots', () => {
  it('COIN TYPE exports the newest market that has snapshots, as CSV', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    await runFake(ctx, { ...KEY, csv: true }, factory, (deps) =>
      runSnapshots(parseSnapshotsArgs('BTC', '5m', {}, NOW), deps),
    );
    expect(calls.snapshots.map((c) => c.id)).toEqual(['btc-updown-5m-1763770200']);
    const out = lines(stdout.text());
    expect(out[0]).toBe('id,market_id,time,price,price_up,price_down');
    expect(out).toHaveLength(1 + 4);
  });

  it('--last N exports the latest N markets oldest first; --orderbook adds the depth columns', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    await runFake(ctx, { ...KEY, csv: true }, factory, (deps) =>
      runSnapshots(parseSnapshotsArgs('btc', '5m', { last: '2', orderbook: true }, NOW), deps),
    );
    expect(calls.snapshots.map((c) => c.id)).toEqual(['btc-updown-5m-1763769900', 'btc-updown-5m-1763770200']);
    expect(calls.snapshots[0]?.q.includeOrderbook).toBe(true);
    const out = lines(stdout.text());
    expect(out[0]).toBe('id,market_id,time,price,price_up,price_down,orderbook_up,orderbook_down');
    expect(out).toHaveLength(1 + 2 + 4);
  });

  it('a range picks the markets overlapping it and filters their snapshots', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    // From 250 ms into the first market to the end of the second.
    const from = T + 250;
    const to = T + 2 * FIVE;
    await runFake(ctx, KEY, factory, (deps) =>
      runSnapshots(parseSnapshotsArgs('BTC', '5m', { from: String(from), to: String(to) }, NOW), deps),
    );
    expect(calls.markets[0]).toMatchObject({ startTime: from - FIVE + 1, endTime: to, all: true });
    expect(calls.snapshots.map((c) => c.id)).toEqual(['btc-updown-5m-1763769600', 'btc-updown-5m-1763769900']);
    const times = lines(stdout.text()).map((l) => (JSON.parse(l) as { time: number }).time);
    expect(times).toEqual([T + 250, T + FIVE, T + FIVE + 125]);
  });

  it('a market id exports that market; --last with an id is a usage error', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    await runFake(ctx, { ...KEY, json: true }, factory, (deps) =>
      runSnapshots(parseSnapshotsArgs('eth-updown-5m-1763769600', undefined, {}, NOW), deps),
    );
    expect(calls.markets).toEqual([]);
    expect(JSON.parse(stdout.text())).toHaveLength(5);
    expect(() => parseSnapshotsArgs('eth-updown-5m-1763769600', undefined, { last: '2' }, NOW)).toThrow(/--last/);
    expect(() => parseSnapshotsArgs('BTC', undefined, {}, NOW)).toThrow(/'BTC' needs a market type after it/);
    expect(() => parseSnapshotsArgs('nonsense', undefined, {}, NOW)).toThrow(/not a market id/);
    expect(() => parseSnapshotsArgs('BTC', '5m', { last: 'x' }, NOW)).toThrow(/--last/);
  });

  it('no market with snapshots is "not found"', async () => {
    const { ctx } = fakeContext();
    const { factory } = fakeClient(MARKETS);
    await expect(
      runFake(ctx, KEY, factory, (deps) => runSnapshots(parseSnapshotsArgs('SOL', '1hr', {}, NOW), deps)),
    ).rejects.toThrow(NotFoundError);
  });

  it('-o writes the file only when the export succeeds', async () => {
    const { ctx, configDir } = fakeContext();
    const { factory } = fakeClient(MARKETS);
    const target = join(configDir, 'btc.csv');
    await runFake(ctx, { ...KEY, output: target }, factory, (deps) =>
      runSnapshots(parseSnapshotsArgs('BTC', '5m', {}, NOW), deps),
    );
    expect(lines(readFileSync(target, 'utf8'))).toHaveLength(5);
    const failing = join(configDir, 'fail.csv');
    await expect(
      runFake(ctx, { ...KEY, output: failing }, factory, (deps) =>
        runSnapshots(parseSnapshotsArgs('btc-updown-5m-1700000000', undefined, {}, NOW), deps),
      ),
    ).rejects.toThrow(NotFoundError);
    expect(readdirSync(configDir).filter((f) => f.startsWith('fail'))).toEqual([]);
  });
});

describe('at', () => {
  it('COIN TYPE TIME asks the market covering the time', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory, calls } = fakeClient(MARKETS);
    const ts = T + FIVE + 61_000;
    await runFake(ctx, { ...KEY, csv: true }, factory, (deps) => runAt(parseAtArgs('BTC', '5m', String(ts), NOW), deps));
    expect(calls.at).toEqual([{ id: 'btc-updown-5m-1763769900', ts }]);
    expect(stdout.text()).toBe(
      'market_id,ts,delta_ms,id,time,price,price_up,price_down\n' +
        `btc-updown-5m-1763769900,${ts},-61000,1,${T + FIVE},100,0.5,0.5\n`,
    );
  });

  it('MARKET-ID TIME, and bad input', () => {
    expect(parseAtArgs('btc-updown-5m-1763769900', '2025-11-22T00:06:00Z', undefined, NOW)).toEqual({
      marketId: 'btc-updown-5m-1763769900',
      ts: T + 6 * 60_000,
    });
    expect(() => parseAtArgs('BTC', '5m', 'soon', NOW)).toThrow(/TIME: 'soon' is not a time/);
    expect(() => parseAtArgs('DOGE', '5m', 'now', NOW)).toThrow('DOGE is coming soon');
  });
});

describe('limits and health', () => {
  const limits = {
    plan: 'builder',
    trial: { active: true, ends_at: Date.UTC(2025, 10, 25) },
    rate_limit: { requests_per_minute: 250, burst_per_second: 12 },
    data_window: { '5m': 4100, '15m': 1400, '1hr': 350, '4hr': 85, '24hr': 14 },
    api_keys: { active: 2, max: 3 },
    usage: { remaining: 241, reset: 1763769660 },
  };

  it('limits: a readable table on a terminal, colour only when allowed', async () => {
    for (const [env, globals, coloured] of [
      [{}, {}, true],
      [{ NO_COLOR: '1' }, {}, false],
      [{}, { color: false }, false],
    ] as const) {
      const { ctx, stdout } = fakeContext({ stdoutTTY: true, env });
      const { factory } = fakeClient([], { limits });
      await runFake(ctx, { ...KEY, ...globals }, factory, (deps) => runLimits(deps));
      const text = stdout.text();
      expect(ANSI.test(text)).toBe(coloured);
      const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
      expect(plain).toMatch(/│ plan +│ builder +│/);
      expect(plain).toMatch(/│ trial +│ active until 2025-11-25T00:00:00.000Z +│/);
      expect(plain).toMatch(/│ data window +│ 4,100 5m, 1,400 15m, 350 1hr, 85 4hr, 14 24hr +│/);
      expect(plain).toMatch(/│ api keys +│ 2 active of 3 +│/);
    }
  });

  it('limits: piped JSON is the body itself; CSV is one flat row', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory } = fakeClient([], { limits });
    await runFake(ctx, { ...KEY, json: true }, factory, (deps) => runLimits(deps));
    expect(JSON.parse(stdout.text())).toEqual(limits);
    const csv = fakeContext();
    await runFake(csv.ctx, { ...KEY, csv: true }, fakeClient([], { limits }).factory, (deps) => runLimits(deps));
    expect(csv.stdout.text()).toBe(
      'plan,trial_active,trial_ends_at,requests_per_minute,burst_per_second,window_5m,window_15m,window_1hr,window_4hr,window_24hr,keys_active,keys_max,usage_remaining,usage_reset\n' +
        'builder,true,1764028800000,250,12,4100,1400,350,85,14,2,3,241,1763769660\n',
    );
  });

  it('health: status, version, time and round trip', async () => {
    const { ctx, stdout } = fakeContext();
    const { factory } = fakeClient([]);
    await runFake(ctx, KEY, factory, (deps) => runHealth(deps));
    expect(stdout.text()).toBe('{"status":"ok","version":"9.9.9","time":1763769600000,"rtt_ms":1.2}\n');
  });
});

describe('keys', () => {
  const SECRET = 'msk_live_SECRET_abcdef0123456789';

  it('adds a key from stdin, lists it masked, and uses it for requests', async () => {
    const { ctx, stdout, stderr, configDir } = fakeContext({ stdin: `${SECRET}\n` });
    const { factory, calls } = fakeClient([]);
    await runFake(ctx, { baseUrl: 'http://127.0.0.1:9' }, factory, (deps) => runKeysAdd('prod', undefined, deps));
    expect(stderr.text()).toContain("Saved key 'prod' (msk_live…) for http://127.0.0.1:9; it is now the active key.");
    expect(statSync(join(configDir, 'config.json')).mode & 0o777).toBe(0o600);

    await runFake(ctx, {}, factory, (deps) => runKeysList(deps));
    const out = stdout.text();
    expect(out).not.toContain(SECRET);
    expect(JSON.parse(lines(out)[0]!)).toEqual({
      active: true,
      name: 'prod',
      key: 'msk_live…',
      base_url: 'http://127.0.0.1:9',
      added_at: NOW,
      rotate: false,
    });

    await runFake(ctx, {}, factory, (deps) => runHealth(deps));
    expect(calls.connections).toEqual([{ baseUrl: 'http://127.0.0.1:9', apiKey: SECRET, authScheme: 'x-api-key', api: 'auto' }]);
    expect(stderr.text()).not.toContain(SECRET);
  });

  it('flags keys older than 90 days and warns', async () => {
    const first = fakeContext({ now: NOW });
    await runFake(first.ctx, {}, fakeClient([]).factory, (deps) => runKeysAdd('old', 'k-old-123456', deps));
    const later = fakeContext({ now: NOW + KEY_ROTATION_MS, env: { MSNAP_CONFIG_DIR: first.configDir } });
    await runFake(later.ctx, { csv: true }, fakeClient([]).factory, (deps) => runKeysList(deps));
    expect(later.stdout.text()).toBe(
      `active,name,key,base_url,added_at,rotate\ntrue,old,k-ol…,http://127.0.0.1:8787,${NOW},true\n`,
    );
    expect(later.stderr.text()).toBe('msnap: warning: key older than 90 days, rotate: old\n');
  });

  it('use and remove switch the active key; flag and env still win over it', async () => {
    const { ctx, stderr } = fakeContext({ env: { MSNAP_API_KEY: 'env-key-xyz' } });
    const { factory, calls } = fakeClient([]);
    await runFake(ctx, {}, factory, (deps) => runKeysAdd('a', 'key-aaaaaa', deps));
    await runFake(ctx, {}, factory, (deps) => runKeysAdd('b', 'key-bbbbbb', deps));
    await runFake(ctx, {}, factory, (deps) => runKeysUse('a', deps));
    await runFake(ctx, {}, factory, (deps) => runHealth(deps));
    await runFake(ctx, { apiKey: 'flag-key' }, factory, (deps) => runHealth(deps));
    expect(calls.connections.map((c) => c.apiKey)).toEqual(['env-key-xyz', 'flag-key']);
    await runFake(ctx, {}, factory, (deps) => runKeysRemove('a', deps));
    // The other stored key takes over, and the message says which.
    expect(stderr.text()).toContain("Removed key 'a'. 'b' is the active key now (msnap keys use NAME picks another).");
    await expect(runFake(ctx, {}, factory, (deps) => runKeysUse('a', deps))).rejects.toThrow(UsageError);
    await runFake(ctx, {}, factory, (deps) => runKeysRemove('b', deps));
    expect(stderr.text()).toContain("Removed key 'b'. No key is stored now; add one with: msnap keys add NAME");
  });

  it('refuses an empty key from stdin', async () => {
    const { ctx } = fakeContext({ stdin: '\n' });
    await expect(runFake(ctx, {}, fakeClient([]).factory, (deps) => runKeysAdd('x', undefined, deps))).rejects.toThrow(
      /no key given/,
    );
  });
});

describe('runMain usage errors', () => {
  it('each bad input is one line on stderr with exit 2 and nothing on stdout', async () => {
    const cases: [string[], RegExp][] = [
      [['markets', '--coin', 'XRP'], /^msnap: XRP is coming soon; available: BTC, ETH, SOL\n$/],
      [['snapshots', 'BTC', '7m'], /^msnap: unknown market type '7m'/],
      [['at', 'BTC', '5m', 'tomorrow'], /^msnap: TIME: 'tomorrow' is not a time/],
      [['markets', '--nope'], /^error: unknown option '--nope' \(did you mean --type\?\)\n\(run with --help for usage\)\n$/],
      [['snapshots'], /^error: missing required argument 'market-id\|coin'\n\(run with --help for usage\)\n$/],
      [['markets', '--csv', '--ndjson'], /^msnap: conflicting output formats/],
      [['keys', 'add', 'bad.name', 'k'], /^msnap: invalid key name/],
    ];
    for (const [argv, pattern] of cases) {
      const { ctx, stdout, stderr } = fakeContext({ env: { MSNAP_API_KEY: 'k' } });
      expect(await runMain(argv, ctx)).toBe(2);
      expect(stderr.text()).toMatch(pattern);
      expect(lines(stderr.text()).length).toBeLessThanOrEqual(2);
      expect(stdout.text()).toBe('');
    }
  });

  it('a missing key is exit 3 before any connection', async () => {
    const { ctx, stderr } = fakeContext();
    expect(await runMain(['limits', '--base-url', 'http://127.0.0.1:9'], ctx)).toBe(3);
    expect(lines(stderr.text())[0]).toBe('msnap: no API key configured');
  });

  it('--help of every command shows examples', async () => {
    for (const argv of [['markets'], ['snapshots'], ['at'], ['limits'], ['health'], ['keys'], ['keys', 'add']]) {
      const { ctx, stdout } = fakeContext();
      expect(await runMain([...argv, '--help'], ctx)).toBe(0);
      expect(stdout.text()).toMatch(/\nExamples:\n  \$ .*msnap /);
    }
  });
});
