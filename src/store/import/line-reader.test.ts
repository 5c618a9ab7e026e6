import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_CHARS, readLineBatches } from './line-reader.js';

/** A stream of `text` in chunks of `size` characters, as a file read gives it. */
function chunked(text: string, size = 65_536): Readable {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return Readable.from(parts.map((p) => Buffer.from(p, 'latin1')));
}

async function lines(input: Readable): Promise<{ first: number; lines: string[] }[]> {
  const out = [];
  for await (const b of readLineBatches(input)) out.push(b);
  return out;
}

describe('readLineBatches', () => {
  it('joins a line spread over many chunks and numbers the lines', async () => {
    const long = 'x'.repeat(3 * 65_536 + 17);
    const got = (await lines(chunked(`a\r\n${long}\nb\nc`))).flatMap((b) => b.lines.map((l, i) => [b.first + i, l.length]));
    expect(got).toEqual([
      [1, 1],
      [2, long.length],
      [3, 1],
      [4, 1],
    ]);
  });

  it('refuses a line over the cap with its number, without reading the rest', async () => {
    const text = `{"a":1}\n${'y'.repeat(MAX_LINE_CHARS + 10)}\n{"b":2}\n`;
    await expect(lines(chunked(text, 1 << 20))).rejects.toThrow(/^line 2: longer than 16 MiB characters/);
  });

  it('refuses an over-long last line that has no newline', async () => {
    await expect(lines(chunked('z'.repeat(MAX_LINE_CHARS + 1), 1 << 20))).rejects.toThrow(/^line 1: longer than/);
  });
});
