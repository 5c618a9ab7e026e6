// A module that throws is named by its file and the line that threw, with the original error (and
// its stack) kept as the cause for --verbose; a bad order names the line that placed it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { runBacktest } from '../engine/engine.js';
import { loadStrategy } from './load-strategy.js';
import { frameIn } from './strategy-error.js';
import { seriesOf, snap, sourceOf, testMarket } from '../test-support/markets.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'msnap-strategy-error-'));

async function failure(name: string, text: string): Promise<UsageError> {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  const m = testMarket(0, 'Up');
  const err = await runBacktest(await loadStrategy(file), sourceOf(seriesOf(m, [snap(m, 0, 0.3)]))).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('a strategy error', () => {
  it("names the module's file, line and column where it threw, and keeps the error as its cause", async () => {
    const err = await failure('throws.mjs', 'export default {\n  onSnapshot(s) {\n    const x = undefined;\n    return x.price;\n  },\n};\n');
    expect(err.message).toMatch(new RegExp(`^strategy error at ${path.join(dir, 'throws.mjs').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:14: .*price.* \\(in onSnapshot at `));
    expect((err as { cause?: unknown }).cause).toBeInstanceOf(TypeError);
  });

  it('names the line that placed a bad order, and says NaN', async () => {
    const err = await failure('nan.mjs', 'export default {\n  onSnapshot(s, ctx) {\n    ctx.buy("up", 0 / 0);\n  },\n};\n');
    expect(err.message).toMatch(/nan\.mjs:3:9: buy: shares must be a positive number, got NaN \(in onSnapshot at /);
  });

  it('finds the first frame in the file, and nothing in other files', () => {
    const file = path.join(dir, 'x.mjs');
    const stack = `Error: boom\n    at helper (node:internal/x:1:1)\n    at Object.onSnapshot (file://${file}:12:5)\n    at more (file://${file}:20:1)`;
    expect(frameIn(stack, file)).toBe(`${file}:12:5`);
    expect(frameIn(stack, path.join(dir, 'y.mjs'))).toBeUndefined();
    expect(frameIn(undefined, file)).toBeUndefined();
  });
});
