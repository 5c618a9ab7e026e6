import { describe, expect, it } from 'vitest';
import { expectSameOutput, firstDifference } from './fast-path.js';

describe('the fast-path check', () => {
  it('finds the first differing byte and shows what surrounds it', () => {
    expect(firstDifference('a,b,c\n1,2,3\n', 'a,b,c\n1,2,3\n')).toBeUndefined();
    expect(firstDifference(Buffer.from('id,price\n1,0.5\n'), 'id,price\n1,0.50\n')).toEqual({ offset: 14, fast: 'id,price\n1,0.5\n', general: 'id,price\n1,0.50\n' });
    expect(firstDifference('abc', 'abcd')?.offset).toBe(3);
  });

  it('fails on a difference, on a fast path that did not run, and on empty outputs', () => {
    expect(() => expectSameOutput('csv', 'x\n1\n', 'x\n1\n', true)).not.toThrow();
    expect(() => expectSameOutput('csv', 'x\n1\n', 'x\n2\n', true)).toThrow(/differs/);
    expect(() => expectSameOutput('csv', 'x\n1\n', 'x\n1\n', false)).toThrow(/did not run/);
    expect(() => expectSameOutput('csv', '', '', true)).toThrow(/wrote nothing/);
  });
});
