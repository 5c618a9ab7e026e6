// Every command output shown in README.md and docs/ inside a block marked `<!-- checked-output: PLAN -->`
// is what the built CLI prints against a seeded `msnap serve` (numbers aside: the seeded data move
// with the clock). A stale block fails here; `npm run docs:outputs` rewrites the blocks.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFiles, docFiles, findBlocks, ROOT, shapeOf, startDocService } from '../scripts/doc-outputs.js';
import { buildIfStale } from './support/msnap-process.js';

describe('checked outputs in the docs', () => {
  let service: Awaited<ReturnType<typeof startDocService>>;

  beforeAll(async () => {
    await buildIfStale();
    service = await startDocService();
  }, 180_000);

  afterAll(async () => {
    await service?.close();
  });

  it('the README and the CLI guide hold checked blocks (the README shows a clamped limit, the CLI guide --verbose)', () => {
    const commands = (file: string) => findBlocks(readFileSync(path.join(ROOT, file), 'utf8')).flatMap((b) => b.steps.map((s) => s.command));
    expect(commands('README.md').some((c) => c.includes('--offset 4098'))).toBe(true);
    expect(commands('docs/service-client.md').some((c) => c.includes('--verbose'))).toBe(true);
  });

  it('every checked block prints what the docs show', async () => {
    const differences = await checkFiles(service, docFiles(), false);
    const report = differences.map((d) => `${d.file}:${d.line} $ ${d.command}\n--- shown\n${d.expected.join('\n')}\n+++ printed\n${d.actual.join('\n')}`);
    expect(report, 'stale outputs: run `npm run docs:outputs` and review the diff').toEqual([]);
  }, 120_000);

  it('compares shapes: numbers, winners and padding may move, words may not', () => {
    expect(shapeOf(['msnap: warning: limit 5 clamped to 2', '│ 98102.24    │ Down │'])).toEqual(shapeOf(['msnap: warning: limit 7 clamped to 3', '│ 108567.4 │ Up │']));
    expect(shapeOf(['msnap: warning: Your builder plan only includes 4,100; limit clamped to 2.'])).not.toEqual(shapeOf(['msnap: warning: limit 5 clamped to 2: your builder plan only includes 4,100']));
  });
});
