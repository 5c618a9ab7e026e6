// The MCP tools' bounds and edges over a seeded SQLite store (the e2e test compares their answers
// with the CLI's): empty ranges, a sample of 0, the size limits, the backtest's target rules.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import type { MsnapReader } from '../lib/reader.js';
import { seedStore } from '../lib/server.js';
import { openStore } from '../lib/store.js';
import { backtest, BACKTEST_MAX_MARKETS, listMarkets, snapshotsSummary, TOOL_LIMITS } from './tools.js';

const NOW = Date.UTC(2025, 10, 22, 12, 2, 30);
const data = { now: () => NOW };
const dir = mkdtempSync(path.join(tmpdir(), 'msnap-mcp-tools-'));
let reader: MsnapReader;
let db: string;
let id: string;
let rows: number;

beforeAll(async () => {
  db = path.join(dir, 'tools.db');
  await seedStore(db, { now: () => NOW, full: { '5m': 2 } });
  reader = await openStore(db, { now: () => NOW });
  const [m] = await reader.select({ coin: 'BTC', type: '5m', last: 1, to: NOW - 300_000 });
  id = m!.market_id;
  rows = m!.snapshot_count;
});

afterAll(async () => {
  await reader?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('snapshots_summary', () => {
  it('keeps the sample within what was asked, spread over the whole market', async () => {
    const s = await snapshotsSummary(reader, { market_id: id, sample: 7 });
    expect(s.rows).toBe(rows);
    expect(s.sample.length).toBeLessThanOrEqual(7);
    expect(s.sample.length).toBeGreaterThanOrEqual(6);
    expect(s.sample[0]!.time).toBe(s.first_time);
    expect(s.sample.at(-1)!.time).toBeGreaterThan(s.first_time! + (s.last_time! - s.first_time!) * 0.7);
  });

  it('answers an empty range with no spans, and a sample of 0 with none', async () => {
    const m = await reader.market(id);
    const empty = await snapshotsSummary(reader, { market_id: id, from: m.end_time + 1000, sample: 5 });
    expect(empty).toMatchObject({ rows: 0, first_time: null, last_time: null, price: null, sample: [], sample_every: 0 });
    const none = await snapshotsSummary(reader, { market_id: id, sample: 0 });
    expect(none.rows).toBe(rows);
    expect(none.sample).toEqual([]);
  });

  it('refuses a sample past its limit', async () => {
    await expect(snapshotsSummary(reader, { market_id: id, sample: TOOL_LIMITS.sample + 1 })).rejects.toBeInstanceOf(UsageError);
  });
});

describe('list_markets and backtest limits', () => {
  it('list_markets takes 1 to 100', async () => {
    await expect(listMarkets(reader, { limit: 0 })).rejects.toBeInstanceOf(UsageError);
    expect((await listMarkets(reader, { limit: TOOL_LIMITS.markets })).markets).toHaveLength(TOOL_LIMITS.markets);
  });

  it('backtest takes a market id or a coin and type, and at most 50 markets', async () => {
    const rule = { name: 'r', side: 'up', size: 1, entry: [{ field: 'price_up', op: '<', value: 0.6 }] };
    await expect(backtest(reader, { rule, market_id: id, coin: 'BTC', type: '5m' }, data)).rejects.toThrow(/not both/);
    await expect(backtest(reader, { rule }, data)).rejects.toThrow(/give market_id, or coin and type/);
    await expect(backtest(reader, { rule, coin: 'BTC', type: '5m', last: BACKTEST_MAX_MARKETS + 1 }, data)).rejects.toBeInstanceOf(UsageError);
    await expect(backtest(reader, { rule: { ...rule, onSnapshot: 'x' }, market_id: id }, data)).rejects.toThrow(/unknown field 'onSnapshot'/);
    const r = await backtest(reader, { rule, market_id: id }, data);
    expect(r.data.snapshots).toBe(rows);
  });

  const rule = { name: 'r', side: 'up', size: 1, entry: [{ field: 'price_up', op: '<', value: 0.6 }] };

  it('backtest over the store file (as the CLI\'s --db) answers as through the reader', async () => {
    const args = { rule, coin: 'BTC', type: '5m', last: 2, from: NOW - 3_600_000 };
    const local = await backtest(reader, args, { ...data, storeFile: db });
    expect(local.data.markets).toBeGreaterThan(0);
    expect(local).toEqual(await backtest(reader, args, data));
  });

  it('backtest refuses a call over its snapshot cap: whole markets before reading, a range as it reads', async () => {
    await expect(backtest(reader, { rule, market_id: id }, { ...data, maxSnapshots: rows - 1 })).rejects.toThrow(
      `the call reads ${rows.toLocaleString('en-US')} snapshots; at most ${(rows - 1).toLocaleString('en-US')} per call`,
    );
    const m = await reader.market(id);
    const half = { rule, market_id: id, from: m.start_time + (m.end_time - m.start_time) / 2 };
    const read = (await backtest(reader, half, data)).data.snapshots;
    await expect(backtest(reader, half, { ...data, storeFile: db, maxSnapshots: read - 1 })).rejects.toThrow(/reads over .* snapshots/);
    expect((await backtest(reader, half, { ...data, maxSnapshots: read })).data.snapshots).toBe(read);
  });

  it('backtest stops at the next market once the call is cancelled', async () => {
    const stop = new AbortController();
    stop.abort();
    await expect(backtest(reader, { rule, market_id: id }, { ...data, signal: stop.signal })).rejects.toThrow('backtest cancelled by the client');
  });
});
