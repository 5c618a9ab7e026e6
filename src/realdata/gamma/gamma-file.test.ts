import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { gammaEventJson, gammaMarketJson } from '../test-support/gamma-events.js';
import { readGammaFile } from './gamma-file.js';

const dir = mkdtempSync(join(tmpdir(), 'msnap-gamma-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const btc = gammaEventJson([gammaMarketJson()]);
const eth = gammaEventJson([gammaMarketJson({ slug: 'eth-updown-5m-1776071100', conditionId: '0x' + 'cd'.repeat(32) })]);

async function failure(path: string): Promise<Error> {
  const err = await readGammaFile(path).then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(UsageError);
  return err as Error;
}

describe('readGammaFile', () => {
  it('reads an answer, a single event, an array of answers, and answers appended one after another', async () => {
    const ids = async (path: string) => (await readGammaFile(path)).markets.map((m) => m.marketId);
    expect(await ids(file('answer.json', JSON.stringify([btc, eth], null, 2)))).toEqual(['btc-updown-5m-1776070800', 'eth-updown-5m-1776071100']);
    expect(await ids(file('event.json', JSON.stringify(eth)))).toEqual(['eth-updown-5m-1776071100']);
    expect(await ids(file('answers.json', JSON.stringify([[btc], [eth]])))).toHaveLength(2);
    expect(await ids(file('appended.json', `${JSON.stringify([btc])}\n${JSON.stringify([eth])}\n${JSON.stringify([])}\n`))).toHaveLength(2);
    // Brackets inside strings do not end a value.
    const tricky = gammaEventJson([gammaMarketJson({ description: 'ends "]}" here [ and { not' })]);
    expect(await ids(file('tricky.json', `\uFEFF${JSON.stringify([tricky])} ${JSON.stringify([eth])}`))).toHaveLength(2);
  });

  it('refuses a file that is not JSON with one line naming it', async () => {
    const path = file('bad.json', '[{"id": "1", "markets": [}');
    const err = await failure(path);
    expect(err.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not JSON \\(`));
    expect(err.message).not.toContain('\n');
    expect((await failure(file('junk.json', `${JSON.stringify([btc])} trailing words`))).message).toContain('not JSON');
  });

  it('refuses an empty, missing or wrongly shaped file, naming it', async () => {
    expect((await failure(file('empty.json', ' \n'))).message).toBe(`${join(dir, 'empty.json')}: empty file, expected Gamma events (JSON)`);
    expect((await failure(join(dir, 'absent.json'))).message).toBe(`${join(dir, 'absent.json')}: cannot read: ENOENT`);
    expect((await failure(file('markets.json', JSON.stringify([gammaMarketJson()])))).message).toContain('markets.json: not Gamma events: item 1 has no markets array');
  });
});
