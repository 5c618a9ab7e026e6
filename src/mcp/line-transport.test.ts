// The MCP line reader over real streams: messages split anywhere across chunks, a line past the
// limit answered and skipped to its newline (in one chunk or many), lines that are not JSON or not
// JSON-RPC answered, and the messages after them still delivered.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport } from './line-transport.js';

async function harness(maxLineBytes: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const got: unknown[] = [];
  const t = new LineTransport(input, output, maxLineBytes);
  t.onmessage = (m) => got.push(m);
  await t.start();
  const written = () => {
    const text = (output.read() as Buffer | null)?.toString('utf8') ?? '';
    return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
  };
  const feed = async (...chunks: string[]) => {
    for (const c of chunks) input.write(c);
    await new Promise((r) => setImmediate(r));
  };
  return { t, got, written, feed };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('LineTransport', () => {
  it('delivers messages split across chunks, several to a chunk, CRLF and blank lines alike', async () => {
    const h = await harness(1000);
    const two = `${ping(1)}\r\n\n${ping(2)}\n`;
    await h.feed(two.slice(0, 5), two.slice(5, 30), two.slice(30));
    expect(h.got).toEqual([JSON.parse(ping(1)), JSON.parse(ping(2))]);
    expect(h.written()).toEqual([]);
  });

  it('answers a line over the limit once, drops it to its newline, and reads the next', async () => {
    const h = await harness(100);
    await h.feed('{"jsonrpc":"2.0","id":7,"params":"', 'x'.repeat(80), 'y'.repeat(80), 'z'.repeat(5000), `"}\n${ping(3)}\n`);
    expect(h.written()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'message too large: a line may hold at most 100 bytes' } }]);
    expect(h.got).toEqual([JSON.parse(ping(3))]);
    // Exactly at the limit is read.
    const exact = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'p', params: { s: '' } });
    const padded = exact.replace('"s":""', `"s":"${'a'.repeat(100 - exact.length)}"`);
    expect(Buffer.byteLength(padded)).toBe(100);
    await h.feed(`${padded}\n`);
    expect(h.got).toHaveLength(2);
  });

  it('answers a line that is not JSON with a parse error, and JSON that is not JSON-RPC with an invalid request', async () => {
    const h = await harness(1000);
    await h.feed('hello there\n', '{"id":9,"method":3}\n', '[1,2]\n', `${ping(5)}\n`);
    expect(h.written()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: the line is not JSON' } },
      { jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'invalid request: not a JSON-RPC 2.0 message' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: not a JSON-RPC 2.0 message' } },
    ]);
    expect(h.got).toEqual([JSON.parse(ping(5))]);
  });

  it('stops reading once closed', async () => {
    const h = await harness(1000);
    let closed = 0;
    h.t.onclose = () => closed++;
    await h.t.close();
    await h.feed(`${ping(1)}\n`);
    expect(h.got).toEqual([]);
    expect(closed).toBe(1);
  });
});
