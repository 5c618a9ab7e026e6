// Streams text lines in batches (one per chunk read), with line numbers, without holding the whole
// file in memory; batching keeps the per-line cost of async iteration out of the import's budget.
import { isAscii } from 'node:buffer';
import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';

/** The longest line read (characters): an export line with both books is a few kB; far longer is not an export. */
export const MAX_LINE_CHARS = 16 * 2 ** 20;

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
  // The unfinished last line, in pieces: a long line costs one join when it ends, not a copy of
  // everything so far at every chunk.
  let carry: string[] = [];
  let carried = 0;
  let next = 1;
  const tooLong = (): never => {
    throw new UsageError(`line ${next}: longer than ${MAX_LINE_CHARS / 2 ** 20} MiB characters; is this a file msnap exported?`);
  };
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    let decoded: string;
    if (typeof chunk === 'string') decoded = chunk;
    else if (ascii && isAscii(chunk)) decoded = chunk.toString('latin1');
    else {
      ascii = false;
      decoded = decoder.decode(chunk, { stream: true });
    }
    if (!decoded.includes('\n')) {
      carry.push(decoded);
      carried += decoded.length;
      if (carried > MAX_LINE_CHARS) tooLong();
      continue;
    }
    const text = carry.length > 0 ? carry.join('') + decoded : decoded;
    const lines = text.split('\n');
    const rest = lines.pop() ?? '';
    carry = rest === '' ? [] : [rest];
    carried = rest.length;
    if (lines[0]!.length > MAX_LINE_CHARS) tooLong();
    if (text.includes('\r')) {
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!;
        if (l.charCodeAt(l.length - 1) === 13) lines[i] = l.slice(0, -1);
      }
    }
    yield { first: next, lines };
    next += lines.length;
    if (carried > MAX_LINE_CHARS) tooLong();
  }
  const last = carry.join('') + decoder.decode();
  if (last.length > MAX_LINE_CHARS) tooLong();
  if (last.length > 0) yield { first: next, lines: [last.endsWith('\r') ? last.slice(0, -1) : last] };
}
