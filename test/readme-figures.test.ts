// The figures the README states about seeded stores, measured: the demo database `msnap serve
// --demo` seeds (the size its start-up message also states), within 10%, and a day with every
// book, within the range the README gives (the seed follows the clock: the day's markets fill as
// it goes on); a figure reworded so this test cannot find it fails too.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIfStale, msnap, ROOT } from './support/msnap-process.js';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
let dir: string;

/** `figure` within 10% of `measured`. */
function near(measured: number, figure: number): boolean {
  return Math.abs(measured / figure - 1) <= 0.1;
}

async function seeded(name: string, args: string[]): Promise<{ mb: number; snapshots: number }> {
  const db = path.join(dir, name);
  const r = await msnap(['serve', 'seed', '--db', db, ...args], { cwd: dir, timeout: 300_000 });
  expect(r.exitCode, r.stderr).toBe(0);
  const said = /([\d,]+) snapshots/.exec(r.stdout);
  expect(said, r.stdout).not.toBeNull();
  const mb = statSync(db).size / 1e6;
  rmSync(db, { force: true });
  return { mb, snapshots: Number(said![1]!.replace(/,/g, '')) };
}

beforeAll(async () => {
  await buildIfStale();
  dir = mkdtempSync(path.join(tmpdir(), 'msnap-readme-figures-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the README's seed figures", () => {
  it('the demo database: its size, as serve --demo says it too', async () => {
    const m = /seeds \.\/msnap\.db \(about (\d+) MB\)/.exec(readme);
    expect(m, 'README: "seeds ./msnap.db (about N MB)"').not.toBeNull();
    const figure = Number(m![1]);
    const said = /const DEMO_DB_MB = (\d+);/.exec(readFileSync(path.join(ROOT, 'src/service/start-service.ts'), 'utf8'));
    expect(Number(said?.[1])).toBe(figure);
    // `serve --demo` seeds with the seed's defaults.
    const { mb } = await seeded('demo.db', []);
    expect(near(mb, figure), `the demo database is ${mb.toFixed(0)} MB; the README says about ${figure} MB`).toBe(true);
  }, 300_000);

  it('a day with every book: its snapshots and its size, within the range the hour of the day gives', async () => {
    // The day's active markets (its 24hr market above all) are partial: the count grows from the
    // first range end at 00:00 UTC to the second at midnight, so the README states the range.
    const m = /serve seed --db demo\.db --days 1 --orderbook-days 1 +# every snapshot with books: ([\d.]+)M-([\d.]+)M snapshots, ~(\d+)-(\d+) MB/.exec(readme);
    expect(m, 'README: "--days 1 --orderbook-days 1 # every snapshot with books: N.NM-N.NM snapshots, ~N-N MB"').not.toBeNull();
    const [lo, hi, loMb, hiMb] = m!.slice(1, 5).map(Number) as [number, number, number, number];
    const { mb, snapshots } = await seeded('books.db', ['--days', '1', '--orderbook-days', '1']);
    expect(snapshots >= lo * 1e6 * 0.95 && snapshots <= hi * 1e6 * 1.05, `${snapshots} snapshots; the README says ${lo}M-${hi}M`).toBe(true);
    expect(mb >= loMb * 0.9 && mb <= hiMb * 1.1, `${mb.toFixed(0)} MB; the README says ~${loMb}-${hiMb} MB`).toBe(true);
  }, 300_000);
});
