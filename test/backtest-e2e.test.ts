// `msnap backtest` through the built CLI on a seeded store (books on its newest markets): the
// same bytes over --db and over a real `msnap serve`; a rule and the equivalent module; a sweep
// row and its single run; side outputs; bad strategies refused before any data is read.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msnap } from './support/msnap-process.js';
import { throwawayDatabase } from './support/throwaway-database.js';
import { startSeededService, type SeededService } from './support/seeded-service.js';
import { CHEAP_UP_RULE } from './support/cheap-up-rule.js';

let svc: SeededService;
let rule: string;
let mod: string;
let selection: string[];


// The same strategy written as a module, as a user would.
const MODULE = `let entries = 0;
export default {
  name: 'cheap-up',
  params: { ask: 0.45 },
  onMarketStart() { entries = 0; },
  onSnapshot(s, ctx) {
    const book = s.orderbook_up;
    const held = ctx.position('up');
    if (held === 0) {
      const ask = book?.asks[0]?.price;
      if (entries < 2 && ask !== undefined && ask < ctx.params.ask && s.elapsed_ms >= 30000) { entries += 1; ctx.buy('up', 10); }
    } else {
      const bid = book?.bids[0]?.price;
      if (bid !== undefined && bid > 0.6) ctx.sell('up', held);
    }
  },
};
`;

beforeAll(async () => {
  svc = await startSeededService('backtest', ['--days', '1', '--seed', '4', '--full', '5m=10,15m=1,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '30']);
  rule = path.join(svc.dir, 'cheap-up.json');
  mod = path.join(svc.dir, 'cheap-up.mjs');
  writeFileSync(rule, JSON.stringify(CHEAP_UP_RULE));
  writeFileSync(mod, MODULE);
  // Resolved markets only: the active one's last quote moves while the tests run.
  const listed = (await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--status', 'resolved', '--limit', '20', '--ndjson'])).stdout;
  const withData = listed.trim().split('\n').map((l) => JSON.parse(l) as { start_time: number; snapshot_count: number }).filter((m) => m.snapshot_count > 0);
  const from = Math.min(...withData.map((m) => m.start_time));
  const to = Math.max(...withData.map((m) => m.start_time)) + 300_000;
  selection = ['BTC', '5m', '--from', String(from), '--to', String(to)];
}, 180_000);
afterAll(async () => svc?.close());

const run = (args: string[]) => svc.run(['backtest', ...args]);

describe('msnap backtest', () => {
  it('gives the same bytes over --db and over serve', async () => {
    const local = await run([rule, ...selection, '--db', svc.db, '--latency-ms', '250', '--format', 'json']);
    expect(local.exitCode, local.stderr).toBe(0);
    const served = await run([rule, ...selection, '--latency-ms', '250', '--format', 'json']);
    expect(served.exitCode, served.stderr).toBe(0);
    expect(served.stdout).toBe(local.stdout);
    const r = JSON.parse(local.stdout);
    expect(r.data.markets).toBeGreaterThanOrEqual(8);
    // The seed's books cover its newest half hour: fills with and without depth both occur.
    expect(r.trades.some((t: { depth: boolean; action: string }) => t.depth && t.action === 'buy')).toBe(true);
    expect(r.summary.fills).toBeGreaterThan(0);
  });

  it('gives the same bytes over --db postgres:// (the store imported), single runs and sweeps', async () => {
    const pg = await throwawayDatabase();
    try {
      const imported = await svc.run(['serve', 'import', svc.db, '--db', pg.url]);
      expect(imported.exitCode, imported.stderr).toBe(0);
      const args = [rule, ...selection, '--latency-ms', '250', '--format', 'json'];
      const fromFile = await run([...args, '--db', svc.db]);
      const fromPg = await run([...args, '--db', pg.url]);
      expect(fromPg.exitCode, fromPg.stderr).toBe(0);
      expect(fromPg.stdout).toBe(fromFile.stdout);
      const sweep = ['--sweep', 'size=5,20', '--csv'];
      const sweptPg = await run([rule, ...selection, '--db', pg.url, ...sweep]);
      expect(sweptPg.exitCode, sweptPg.stderr).toBe(0);
      expect(sweptPg.stdout).toBe((await run([rule, ...selection, '--db', svc.db, ...sweep])).stdout);
    } finally {
      await pg.destroy();
    }
  });

  it('cuts markets at a --from/--to inside them the same way over --db and over serve', async () => {
    const from = Number(selection[3]) + 300_000 + 90_000;
    const to = Number(selection[5]) - 300_000 - 30_000;
    const args = [rule, 'BTC', '5m', '--from', String(from), '--to', String(to), '--format', 'json'];
    const local = await run([...args, '--db', svc.db]);
    expect(local.exitCode, local.stderr).toBe(0);
    const served = await run(args);
    expect(served.stdout).toBe(local.stdout);
    const r = JSON.parse(local.stdout);
    expect(r.trades.length).toBeGreaterThan(0);
    // The first market is read from 90 s in and the last up to 30 s before its end: no decision outside.
    const decided = r.trades.filter((t: { action: string }) => t.action !== 'settle');
    expect(decided.every((t: { decided_at: number }) => t.decided_at >= from && t.decided_at < to)).toBe(true);
    expect(r.data.snapshots).toBeLessThan(r.data.markets * 2400);
  });

  it('gives the same bytes for the rule file and the equivalent module', async () => {
    const a = await run([rule, ...selection, '--db', svc.db, '--format', 'json']);
    const b = await run([mod, ...selection, '--db', svc.db, '--format', 'json']);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    // And --set reaches the module's params as it reaches the rule's fields.
    const c = await run([rule, ...selection, '--db', svc.db, '--set', 'entry.0.value=0.5', '--format', 'json']);
    const d = await run([mod, ...selection, '--db', svc.db, '--set', 'ask=0.5', '--format', 'json']);
    expect(d.stdout).toBe(c.stdout);
    expect(c.stdout).not.toBe(a.stdout);
  });

  it('writes one sweep row per combination, each equal to the single run with the same --set', async () => {
    const sweep = await run([rule, ...selection, '--db', svc.db, '--sweep', 'entry.0.value=0.4,0.5', '--sweep', 'size=5,20', '--csv']);
    expect(sweep.exitCode, sweep.stderr).toBe(0);
    const [head, ...rows] = sweep.stdout.split('\n');
    expect(head!.startsWith('entry.0.value,size,start_cash,')).toBe(true);
    expect(rows.map((r) => r.split(',').slice(0, 2).join(','))).toEqual(['0.4,5', '0.4,20', '0.5,5', '0.5,20']);
    const single = await run([rule, ...selection, '--db', svc.db, '--set', 'entry.0.value=0.5', '--set', 'size=5', '--csv']);
    const [singleHead, singleRow] = single.stdout.split('\n');
    // The single run's summary columns start at start_cash.
    const at = singleHead!.split(',').indexOf('start_cash');
    expect(rows[2]!.split(',').slice(2)).toEqual(singleRow!.split(',').slice(at));
  });

  it('gives the same sweep rows over serve (read once, run in-process) as over --db (worker threads)', async () => {
    const args = [rule, ...selection, '--sweep', 'max_entries=1,3', '--sweep', 'side=up,down', '--ndjson'];
    const local = await run([...args, '--db', svc.db]);
    expect(local.exitCode, local.stderr).toBe(0);
    const served = await run(args);
    expect(served.exitCode, served.stderr).toBe(0);
    expect(served.stdout).toBe(local.stdout);
    expect(local.stdout.split('\n').map((l) => JSON.parse(l)['side'])).toEqual(['up', 'down', 'up', 'down']);
  });

  it('sweeps a module (a fresh worker per run) to the same summaries as the rule', async () => {
    const summaries = (text: string) => text.split('\n').map((l) => l.split(',').slice(1).join(','));
    const ruled = await run([rule, ...selection, '--db', svc.db, '--sweep', 'entry.0.value=0.4,0.5', '--csv']);
    const moduled = await run([mod, ...selection, '--db', svc.db, '--sweep', 'ask=0.4,0.5', '--csv']);
    expect(moduled.exitCode, moduled.stderr).toBe(0);
    expect(summaries(moduled.stdout)).toEqual(summaries(ruled.stdout));
  });

  it('writes --trades by extension and a self-contained --html page', async () => {
    const trades = path.join(svc.dir, 'trades.parquet');
    const html = path.join(svc.dir, 'report.html');
    const r = await run([rule, ...selection, '--db', svc.db, '--trades', trades, '--html', html, '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    const rows = await parquetReadObjects({ file: new Uint8Array(readFileSync(trades)).buffer });
    expect(rows.length).toBe(result.trades.length);
    expect(rows[0]!['vwap']).toBe(result.trades[0].vwap);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<svg');
    expect(page).toContain(result.trades[0].market_id);
    expect(page).not.toMatch(/https?:\/\/|<script|src=/);
  });

  it.each([
    ['an unknown field', { ...CHEAP_UP_RULE, entry: [{ field: 'volume', op: '<', value: 1 }] }, [], /unknown field "volume"/],
    ['a bad side', { ...CHEAP_UP_RULE, side: 'yes' }, [], /side must be 'up' or 'down'/],
    ['a bad --set path', CHEAP_UP_RULE, ['--set', 'exit.4.value=1'], /has no 'exit.4'/],
  ])('refuses %s with exit 2 before reading any data', async (_what, strategy, extra, message) => {
    const file = path.join(svc.dir, 'bad.json');
    writeFileSync(file, JSON.stringify(strategy));
    // The store does not exist: the strategy is refused before it is opened.
    const r = await msnap(['backtest', file, 'BTC', '5m', '--db', path.join(svc.dir, 'none.db'), ...(extra as string[])], { cwd: svc.dir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
