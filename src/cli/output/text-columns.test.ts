import { describe, expect, it } from 'vitest';
import { renderColumns } from './text-columns.js';

describe('renderColumns', () => {
  it('pads every column to its widest cell and trims line ends', () => {
    expect(renderColumns(['ID', 'NAME', 'X'], [['1', 'alice', ''], ['22', 'bo', 'y']])).toBe('ID  NAME   X\n1   alice\n22  bo     y\n');
  });
});
