// Streams text lines in batches (one per chunk read), with line numbers, without holding the whole
// file in memory; batching keeps the per-line cost of async iteration out of the import's budget.
import { isAscii } from 'node:buffer';
import type { Readable } from 'node:stream';

/** Consecutive lines of input; `first` is the 1-based number of lines[0]. */
export interface LineBatch {
  first: number;
  lines: string[];
}

/** Use to iterate a stream's lines (LF or CRLF); the final line needs no newline. */
export async function* readLineBatches(input: NodeJS.ReadableStream | Readable): AsyncGenerator<LineBatch> {
  const decoder = new TextDecoder('utf-8');
  // Exports are ASCII: a latin1 copy of such a chunk is its UTF-8 text at a third of the decoder's
  // cost. From the first other chunk on (a BOM included) the decoder reads the rest, so its
  // multi-byte state is never split between the two.
  let ascii = true;
  let carry = '';
  let next = 1;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let decoded: string;
    if (typeof chunk === 'string') decoded = chunk;
    else if (ascii && isAscii(chunk)) decoded = chunk.toString('latin1');
    else {
      ascii = false;
      decoded = decoder.decode(chunk, { stream: true });
    }
    const text = carry + decoded;
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    if (lines.length === 0) continue;
    if (text.includes('\r')) {
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!;
        if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
      }
    }
    yield { first: next, lines };
    next += lines.length;
  }
  carry += decoder.decode();
  if (carry.length > 0) yield { first: next, lines: [carry.endsWith('\r') ? carry.slice(0, -1) : carry] };
}
