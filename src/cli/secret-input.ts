// Reading a secret (an API key) from stdin so it stays out of shell history: piped text as is,
// or a prompt without echo on a terminal.
import type { Writable } from 'node:stream';
import { UsageError } from '../errors.js';

type Stdin = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

/** Use for `keys add NAME` without KEY; resolves to the trimmed text (empty when none). */
export async function readSecret(stdin: Stdin, prompt: Writable, question: string): Promise<string> {
  if (stdin.isTTY && typeof stdin.setRawMode === 'function') return readHidden(stdin, prompt, question);
  let text = '';
  stdin.setEncoding('utf8');
  for await (const chunk of stdin) text += String(chunk);
  return text.trim();
}

function readHidden(stdin: Stdin, prompt: Writable, question: string): Promise<string> {
  prompt.write(question);
  stdin.setRawMode?.(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (err?: Error): void => {
      stdin.setRawMode?.(false);
      stdin.pause();
      stdin.off('data', onData);
      prompt.write('\n');
      if (err) reject(err);
      else resolve(value.trim());
    };
    const onData = (chunk: string | Buffer): void => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new UsageError('cancelled: no key read'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
