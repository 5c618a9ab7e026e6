import { describe, expect, it } from 'vitest';
import { copyText } from './copy.js';

describe('copy button', () => {
  it('writes the text to the clipboard', async () => {
    const written: string[] = [];
    expect(await copyText('msk_abc', { writeText: async (t) => void written.push(t) })).toBe(true);
    expect(written).toEqual(['msk_abc']);
  });

  it('reports a refused or missing clipboard, and copies nothing empty', async () => {
    expect(await copyText('msk_abc', { writeText: () => Promise.reject(new Error('denied')) })).toBe(false);
    expect(await copyText('msk_abc', undefined)).toBe(false);
    let called = false;
    expect(await copyText('', { writeText: async () => void (called = true) })).toBe(false);
    expect(called).toBe(false);
  });
});
