// loadStrategy: files of both kinds, --set overrides, and a usage error for every bad strategy.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { loadStrategy, parseSet } from './load-strategy.js';
import { isModuleStrategy, type ModuleStrategy, type RuleStrategy } from './strategy.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'msnap-strategy-'));
const write = (name: string, text: string): string => {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
};
const RULE = { side: 'up', size: 10, entry: [{ field: 'price_up', op: '<', value: 0.3 }] };
const TYPED = 'export default { params: { below: 0.3, on: false, side: "up", levels: [1, 2] }, onSnapshot() {} };';

describe('loadStrategy', () => {
  it('reads a rule file, names it after the file and fills the defaults', async () => {
    const s = (await loadStrategy(write('cheap-up.json', JSON.stringify(RULE)))) as RuleStrategy;
    expect(s).toMatchObject({ name: 'cheap-up', side: 'up', size: 10, max_entries: 1, max_price: 1, min_price: 0 });
  });

  it('applies --set to existing paths, values as JSON when they parse', async () => {
    const s = (await loadStrategy(write('r.json', JSON.stringify(RULE)), ['size=5', 'entry.0.value=0.25', 'side=down', 'max_entries=2'])) as RuleStrategy;
    expect(s).toMatchObject({ size: 5, side: 'down', max_entries: 2, entry: [{ field: 'price_up', op: '<', value: 0.25 }] });
    expect(parseSet('name=a=b')).toEqual({ path: ['name'], value: 'a=b', text: 'a=b' });
  });

  it('loads a module with its params under --set', async () => {
    const file = write('m.mjs', 'export default { params: { size: 3 }, onSnapshot(s, ctx) { ctx.buy("up", ctx.params.size); } };');
    const s = (await loadStrategy(file, ['size=7'])) as ModuleStrategy;
    expect(isModuleStrategy(s)).toBe(true);
    expect(s.name).toBe('m');
    expect(s.params).toEqual({ size: 7 });
  });

  it("gives a module's params the types of its declared defaults", async () => {
    const s = (await loadStrategy(write('typed.mjs', TYPED), ['below=0.25', 'on=true', 'side=1', 'levels=[3]'])) as ModuleStrategy;
    expect(s.params).toEqual({ below: 0.25, on: true, side: '1', levels: [3] });
    expect(s.source).toBe(path.join(dir, 'typed.mjs'));
  });

  const bad: [string, () => Promise<unknown>, RegExp][] = [
    ['unknown field', () => loadStrategy({ ...RULE, entry: [{ field: 'volume', op: '<', value: 1 }] } as never), /unknown field "volume"/],
    ['unknown op', () => loadStrategy({ ...RULE, entry: [{ field: 'price', op: '!=', value: 1 }] } as never), /unknown op "!="/],
    ['bad side', () => loadStrategy({ ...RULE, side: 'yes' } as never), /side must be 'up' or 'down'/],
    ['size 0', () => loadStrategy({ ...RULE, size: 0 } as never), /size must be a number > 0/],
    ['unknown key', () => loadStrategy({ ...RULE, sizes: 1 } as never), /unknown field 'sizes'/],
    ['bad --set path', () => loadStrategy(RULE as never, ['entry.3.value=1']), /has no 'entry.3'/],
    ['--set without =', () => loadStrategy(RULE as never, ['size']), /PATH=VALUE/],
    ['--set making it bad', () => loadStrategy(RULE as never, ['size=-1']), /size must be a number > 0/],
    ['not JSON', () => loadStrategy(write('x.json', '{ side: up')), /not valid JSON/],
    ['missing file', () => loadStrategy(path.join(dir, 'none.json')), /cannot read strategy/],
    ['other extension', () => loadStrategy(write('x.yaml', '')), /\.json rule file or a \.js\/\.mjs module/],
    ['module without onSnapshot', () => loadStrategy(write('n.mjs', 'export default { };')), /onSnapshot/],
    ['module param when it declares none', () => loadStrategy(write('p.mjs', 'export default { onSnapshot() {} };'), ['size=1']), /p\.mjs declares no params/],
    ['module param unknown', () => loadStrategy(write('q.mjs', TYPED), ['sise=1']), /q\.mjs has no param 'sise'; its params: below, on, side, levels$/],
    ['a number param given text', () => loadStrategy(write('t1.mjs', TYPED), ['below=0,3']), /^--set below=0,3: below is a number in .*t1\.mjs; got "0,3"$/],
    ['a number param given NaN', () => loadStrategy(write('t2.mjs', TYPED), ['below=NaN']), /below is a number/],
    ['a boolean param given a number', () => loadStrategy(write('t3.mjs', TYPED), ['on=1']), /on is a boolean in .*; got "1"/],
    ['a list param given a number', () => loadStrategy(write('t4.mjs', TYPED), ['levels=3']), /levels is a list/],
    ['a sweep value that does not fit', () => loadStrategy(write('t5.mjs', TYPED), ['below=low'], '--sweep'), /^--sweep below=low: below is a number/],
  ];
  for (const [what, load, message] of bad) {
    it(`refuses ${what} with a UsageError`, async () => {
      const err = await load().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(message);
    });
  }
});
