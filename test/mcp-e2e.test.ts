// `msnap mcp` spawned as an MCP client would (the official SDK's stdio client): initialize, list the
// tools, call each, and check every answer against the CLI's output for the same query through
// the same `msnap serve`; errors are tool errors with the CLI's words; the key never shows.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, CLEAN_ENV, ROOT } from './support/msnap-process.js';
import { startSeededService, type SeededService } from './support/seeded-service.js';

interface Session {
  client: Client;
  stderr: () => string;
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
}

const sessions: Session[] = [];

async function open(env: Record<string, string>, args: string[] = []): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd: ROOT,
    env: Object.fromEntries(Object.entries({ ...process.env, ...CLEAN_ENV, ...env }).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const client = new Client({ name: 'msnap-e2e', version: '1.0.0' });
  await client.connect(transport);
  const session: Session = {
    client,
    stderr: () => err,
    async call(name, a) {
      const r = await client.callTool({ name, arguments: a });
      const content = r.content as { type: string; text: string }[];
      expect(content).toHaveLength(1);
      return { text: content[0]!.text, isError: r.isError === true };
    },
  };
  sessions.push(session);
  return session;
}

let service: SeededService;
let mcp: Session;
let market: { market_id: string; snapshot_count: number; start_time: number; end_time: number };

const lines = (text: string) => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  // Two full 5m markets per coin: the older is complete and resolved.
  service = await startSeededService('mcp', ['--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0']);
  mcp = await open(service.env);
  const listed = await service.run(['markets', '--coin', 'BTC', '--type', '5m', '--status', 'resolved', '--limit', '5', '--ndjson']);
  market = lines(listed.stdout).find((m) => (m.snapshot_count as number) > 0) as typeof market;
}, 180_000);

afterAll(async () => {
  for (const s of sessions) await s.client.close();
  await service?.close();
});

describe('msnap mcp', () => {
  it('initializes and lists its tools, each described with an input schema', async () => {
    expect(mcp.client.getServerVersion()?.name).toBe('msnap');
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['at', 'backtest', 'describe_market', 'list_markets', 'quality', 'snapshots_summary']);
    for (const t of tools) {
      expect(t.description?.length).toBeGreaterThan(20);
      expect(t.inputSchema.type).toBe('object');
    }
  });

  it('list_markets answers what `msnap markets` prints', async () => {
    const r = await mcp.call('list_markets', { coin: 'eth', type: '5m', limit: 7 });
    expect(r.isError).toBe(false);
    const cli = await service.run(['markets', '--coin', 'ETH', '--type', '5m', '--limit', '7', '--ndjson']);
    expect(JSON.parse(r.text)).toEqual({ markets: lines(cli.stdout) });
  });

  it('describe_market gives the record and the share of its grid it holds', async () => {
    const r = await mcp.call('describe_market', { market_id: market.market_id });
    const d = JSON.parse(r.text) as { market: unknown; expected_snapshots: number; coverage: number; duration_ms: number };
    expect(d.market).toEqual(market);
    expect(d.duration_ms).toBe(300_000);
    expect(d.expected_snapshots).toBe(2400);
    expect(d.coverage).toBeCloseTo(market.snapshot_count / 2400, 4);
  });

  it('snapshots_summary counts, spans and samples the rows `msnap snapshots` exports', async () => {
    const from = market.start_time + 10_000;
    const r = await mcp.call('snapshots_summary', { market_id: market.market_id, from, sample: 7 });
    const s = JSON.parse(r.text) as { rows: number; first_time: number; last_time: number; price_up: { first: number; last: number; min: number; max: number }; sample_every: number; sample: unknown[] };
    const rows = lines((await service.run(['snapshots', market.market_id, '--from', String(from), '--ndjson'])).stdout);
    expect(s.rows).toBe(rows.length);
    expect(s.first_time).toBe(rows[0]!.time);
    expect(s.last_time).toBe(rows.at(-1)!.time);
    const ups = rows.map((x) => x.price_up as number);
    expect(s.price_up).toEqual({ first: ups[0], last: ups.at(-1), min: Math.min(...ups), max: Math.max(...ups) });
    expect(s.sample.length).toBeLessThanOrEqual(7);
    expect(s.sample).toEqual(rows.filter((_, i) => i % s.sample_every === 0).slice(0, 7));
  });

  it('at answers what `msnap at` prints', async () => {
    const ts = market.start_time + 61_000;
    const r = await mcp.call('at', { market_id: market.market_id, time: new Date(ts).toISOString() });
    const cli = await service.run(['at', market.market_id, String(ts), '--ndjson']);
    expect(JSON.parse(r.text)).toEqual(JSON.parse(cli.stdout));
  });

  it('quality answers what `msnap quality` reports', async () => {
    const r = await mcp.call('quality', { market_id: market.market_id });
    const cli = await service.run(['quality', market.market_id, '--ndjson']);
    expect(JSON.parse(r.text)).toEqual(JSON.parse(cli.stdout));
  });

  it('backtest answers what `msnap backtest --json` writes for the same rule (lists capped)', async () => {
    const rule = { name: 'cheap-up', side: 'up', size: 10, max_entries: 3, entry: [{ field: 'price_up', op: '<', value: 0.6 }] };
    const file = path.join(service.dir, 'cheap-up.json');
    writeFileSync(file, JSON.stringify(rule));
    const r = await mcp.call('backtest', { rule, coin: 'BTC', type: '5m', last: 2, latency_ms: 250 });
    expect(r.isError, r.text).toBe(false);
    const cli = await service.run(['backtest', file, 'BTC', '5m', '--last', '2', '--latency-ms', '250', '--json']);
    expect(cli.exitCode, cli.stderr).toBe(0);
    const want = JSON.parse(cli.stdout) as { strategy: string; params: unknown; data: { markets: number }; summary: { fills: number }; markets: unknown[]; trades: unknown[] };
    const got = JSON.parse(r.text) as typeof want & { trades_listed: number };
    expect(want.data.markets).toBe(2);
    expect(want.summary.fills).toBeGreaterThan(0);
    expect({ strategy: got.strategy, params: got.params, data: got.data, summary: got.summary }).toEqual({
      strategy: want.strategy,
      params: want.params,
      data: want.data,
      summary: want.summary,
    });
    expect(got.markets).toEqual(want.markets.slice(0, 50));
    expect(got.trades).toEqual(want.trades.slice(0, 50));
    const code = await mcp.call('backtest', { rule: { ...rule, side: 'sideways' }, market_id: market.market_id });
    expect(code.isError).toBe(true);
    writeFileSync(file, JSON.stringify({ ...rule, side: 'sideways' }));
    expect(code.text).toBe((await service.run(['backtest', file, market.market_id])).stderr);
  });

  it('a failure is a tool error worded as the CLI words it', async () => {
    const unknown = 'btc-updown-5m-1000000200';
    const r = await mcp.call('at', { market_id: unknown, time: 'now' });
    expect(r.isError).toBe(true);
    const cli = await service.run(['at', unknown, 'now']);
    expect(cli.exitCode).toBe(6);
    expect(r.text).toBe(cli.stderr);
    const bad = await mcp.call('list_markets', { coin: 'DOGE' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toBe((await service.run(['markets', '--coin', 'DOGE'])).stderr);
    const big = await mcp.call('list_markets', { limit: 5000 });
    expect(big).toEqual({ isError: true, text: 'msnap: limit must be 1 to 100, got 5000' });
  });

  it('a refused key is a tool error that never holds the key, nor does anything it writes', async () => {
    const key = 'msk_thisisnotarealkeybutlongenough0123456789';
    const s = await open({ ...service.env, MSNAP_API_KEY: key });
    const r = await s.call('list_markets', {});
    expect(r.isError).toBe(true);
    const cli = await service.run(['markets'], { env: { MSNAP_API_KEY: key } });
    expect(cli.exitCode).toBe(3);
    expect(r.text).toBe(cli.stderr);
    for (const text of [r.text, s.stderr(), mcp.stderr()]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(service.env.MSNAP_API_KEY);
    }
  });

  it('over a local store (--db) answers as the CLI over that store, and as over the service', async () => {
    const local = await open({}, ['--db', service.db]);
    const a = await local.call('list_markets', { coin: 'SOL', limit: 10 });
    expect(a.isError).toBe(false);
    const cli = await service.run(['markets', '--coin', 'SOL', '--limit', '10', '--ndjson', '--db', service.db]);
    expect(JSON.parse(a.text)).toEqual({ markets: lines(cli.stdout) });
    const q = await local.call('quality', { market_id: market.market_id });
    expect(JSON.parse(q.text)).toEqual(JSON.parse((await mcp.call('quality', { market_id: market.market_id })).text));
  });

  it('backtest over a local store (--db) reads its file and answers as over the service', async () => {
    const local = await open({}, ['--db', service.db]);
    const rule = { name: 'cheap-down', side: 'down', size: 5, entry: [{ field: 'price_down', op: '<', value: 0.55 }] };
    const a = await local.call('backtest', { rule, coin: 'ETH', type: '5m', last: 2 });
    expect(a.isError, a.text).toBe(false);
    expect(JSON.parse(a.text)).toEqual(JSON.parse((await mcp.call('backtest', { rule, coin: 'ETH', type: '5m', last: 2 })).text));
  });

  it('answers a line over 10 MiB and a line that is not JSON with JSON-RPC errors, and keeps serving', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, env: { ...process.env, ...CLEAN_ENV, ...service.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const answers = async (n: number) => {
      const until = Date.now() + 30_000;
      while (out.split('\n').filter((l) => l !== '').length < n) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`wanted ${n} answers, got: ${out.slice(0, 500)} (exit ${child.exitCode})`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    const huge = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}"}}\n`;
    for (let i = 0; i < huge.length; i += 1 << 20) child.stdin.write(huge.slice(i, i + (1 << 20)));
    child.stdin.write('not json at all\n');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
    const got = await answers(3);
    child.stdin.end();
    await new Promise((r) => child.once('close', r));
    expect(got[0]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `message too large: a line may hold at most ${10 * 1024 * 1024} bytes` } });
    expect(got[1]).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: the line is not JSON' } });
    expect(got[2]).toMatchObject({ jsonrpc: '2.0', id: 2, result: { serverInfo: { name: 'msnap' } } });
    expect(child.exitCode).toBe(0);
  });
});
