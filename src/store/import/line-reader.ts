// Streams text lines in batches (one per chunk read), with line numbers, without holding the whole
// file in memory; batching keeps the per-line cost of async iteration out of the import's budget.
import type { Readable } from 'node:stream';

/** Consecutive lines of input; `first` is the 1-based number of lines[0]. */
export interface LineBatch {
  first: number;
  lines: string[];
}

/** Use to iterate a stream's lines (LF or CRLF); the final line needs no newline. */
export async function* readLineBatches(input: NodeJS.ReadableStream | Readable): AsyncGenerator<LineBatch> {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  let next = 1;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const text = carry + (typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    if (lines.length === 0) continue;
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
    }
    yield { first: next, lines };
    next += lines.length;
  }
  carry += decoder.decode();
  if (carry.length > 0) yield { first: next, lines: [carry.endsWith('\r') ? carry.slice(0, -1) : carry] };
}
