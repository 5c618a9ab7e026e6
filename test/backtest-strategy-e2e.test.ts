// `msnap backtest` with JavaScript strategies through the built CLI on a seeded store: a module's
// console output never reaches the data, its params are typed by its declared defaults, its errors
// name its file and line, sweeps are capped, and --trades says what its format comes from.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, seed } from './support/msnap-process.js';

let dir: string;
let db: string;
const selection = ['BTC', '5m', '--last', '3'];

// Logs at load and on every entry; buys below its `below` param.
const LOGGING = `console.log('loaded');
export default {
  params: { below: 0.45, label: 'x' },
  onSnapshot(s, ctx) {
    if (s.price_up < ctx.params.below && ctx.position('up') === 0) {
      console.log('buy', ctx.params.label, s.price_up);
      console.info('info line');
      ctx.buy('up', 1);
    }
  },
};
`;

const THROWS = `export default {
  params: { below: 0.5 },
  onSnapshot(s, ctx) {
    if (s.price_up > 0) throw new RangeError('no price ' + s.price_up);
  },
};
`;

const NAN = `export default {
  onSnapshot(s, ctx) {
    ctx.buy('up', 0 / 0);
  },
};
`;

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const run = (args: string[]) => msnap(['backtest', ...args], { cwd: dir, timeout: 60_000 });

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-strategy-'));
  db = path.join(dir, 'data.db');
  await seed(db, ['--days', '1', '--seed', '7', '--full', '5m=4,15m=0,1hr=0,4hr=0,24hr=0', '--orderbook-minutes', '20']);
  file('logs.mjs', LOGGING);
  // The same params, silent at load: a refusal is then the only line on stderr.
  file('quiet.mjs', LOGGING.slice(LOGGING.indexOf('\n') + 1));
  file('throws.mjs', THROWS);
  file('nan.mjs', NAN);
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a module strategy', () => {
  it('logs to stderr: --format json stays valid JSON', async () => {
    const r = await run(['logs.mjs', ...selection, '--db', db, '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { summary: { fills: number } };
    expect(result.summary.fills).toBeGreaterThan(0);
    const err = r.stderr.split('\n');
    expect(err[0]).toBe('loaded');
    expect(err.filter((l) => l.startsWith('buy x '))).toHaveLength(result.summary.fills);
    expect(err).toContain('info line');
  });

  it('logs to stderr from sweep workers too: the CSV holds the rows alone', async () => {
    const r = await run(['logs.mjs', ...selection, '--db', db, '--sweep', 'below=0.3,0.45', '--csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]!.startsWith('below,start_cash,')).toBe(true);
    expect(r.stderr).toContain('loaded');
    expect(r.stderr).toMatch(/^buy x /m);
  });

  it('takes --set values of the type of its declared params (a string param as the text given)', async () => {
    // below=0.99 buys in any market the seed makes (which markets are newest depends on the clock);
    // label=0.50 prints as given, where a number would print 0.5.
    const a = await run(['logs.mjs', ...selection, '--db', db, '--set', 'below=0.99', '--set', 'label=0.50', '--format', 'json']);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/^buy 0\.50 /m);
  });

  it.each([
    ['a number param given 0,3', ['--set', 'below=0,3'], /^msnap: --set below=0,3: below is a number in quiet\.mjs; got "0,3"$/],
    ['a param it does not declare', ['--set', 'bellow=0.3'], /^msnap: --set bellow=0\.3: quiet\.mjs has no param 'bellow'; its params: below, label$/],
    ['a sweep value that is not a number', ['--sweep', 'below=0.3,low'], /^msnap: --sweep below=low: below is a number in quiet\.mjs; got "low"$/],
    ['a sweep over the cap', ['--sweep', `below=${Array.from({ length: 40 }, (_, k) => k / 100).join(',')}`, '--sweep', `label=${Array.from({ length: 30 }, (_, k) => `l${k}`).join(',')}`],
      /^msnap: --sweep makes 1,200 runs \(40 below × 30 label\), over the cap of 1,000: drop values, or allow them with --max-runs 1200$/],
    ['a sweep over a --max-runs', ['--sweep', 'below=0.1,0.2,0.3', '--max-runs', '2'], /^msnap: --sweep makes 3 runs \(3 below\), over the cap of 2/],
    ['--max-runs without --sweep', ['--max-runs', '2'], /^msnap: --max-runs caps a sweep/],
    ['--trades with an extension it cannot write', ['--trades', 't.txt', '--format', 'csv'], /^msnap: --trades t\.txt: the trades file's format comes from its extension: name it \.csv, /],
  ])('refuses %s with one line and exit 2, before reading any data', async (_what, extra, message) => {
    // The store does not exist: the flags are refused before it is opened.
    const r = await run(['quiet.mjs', ...selection, '--db', path.join(dir, 'none.db'), ...extra]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('runs a sweep within a raised --max-runs', async () => {
    const r = await run(['logs.mjs', ...selection, '--db', db, '--sweep', 'below=0.1,0.2,0.3', '--max-runs', '3', '--csv']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(4);
  });

  it('that throws is named by its file and line; --verbose adds the stack', async () => {
    const r = await run(['throws.mjs', ...selection, '--db', db]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(/^msnap: strategy error at throws\.mjs:4:31: no price [\d.]+ \(in onSnapshot at btc-updown-5m-\d+ \S+Z\)$/);
    const verbose = await run(['throws.mjs', ...selection, '--db', db, '--verbose']);
    expect(verbose.stderr).toMatch(/^RangeError: no price/m);
    expect(verbose.stderr).toContain(`at Object.onSnapshot (file://${path.join(dir, 'throws.mjs')}:4:31)`);
    // The same from a sweep's worker thread.
    const swept = await run(['throws.mjs', ...selection, '--db', db, '--sweep', 'below=1,2', '--verbose']);
    expect(swept.exitCode).toBe(2);
    expect(swept.stderr).toMatch(/^msnap: strategy error at throws\.mjs:4:31: /);
    expect(swept.stderr).toContain(`(file://${path.join(dir, 'throws.mjs')}:4:31)`);
  });

  it('that buys NaN shares is told NaN, at the line that placed the order', async () => {
    const r = await run(['nan.mjs', ...selection, '--db', db]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(/^msnap: strategy error at nan\.mjs:3:9: buy: shares must be a positive number, got NaN \(in onSnapshot at /);
  });
});
