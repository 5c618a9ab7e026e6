// MCP's stdio framing (one JSON-RPC message per line) read with a bound on a line's size. The
// SDK's own transport stops reading at its buffer cap and drops lines that are not JSON-RPC
// without a word, so a client waits forever; here a line too long is discarded up to its newline
// and answered with an Invalid Request error, a line that is not JSON with a Parse error, and the
// server keeps serving either way.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest line (one message) read, as the SDK's own stdio transport allows. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

const NEWLINE = 0x0a;

/** Use for `msnap mcp`'s stdin/stdout: the SDK's StdioServerTransport with bad lines answered. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private held = 0;
  /** Inside a line already over the limit: its bytes are dropped up to its newline. */
  private skipping = false;
  private readonly onData = (chunk: Buffer): void => this.take(chunk);
  private readonly onError = (err: Error): void => this.onerror?.(err);

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    this.parts = [];
    this.held = 0;
    this.onclose?.();
  }

  private take(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.skipping) {
        if (this.held + (end - start) > this.maxLineBytes) {
          this.parts = [];
          this.held = 0;
          this.skipping = true;
          this.refuse(ErrorCode.InvalidRequest, `message too large: a line may hold at most ${this.maxLineBytes} bytes`);
        } else if (end > start) {
          this.parts.push(chunk.subarray(start, end));
          this.held += end - start;
        }
      }
      if (nl === -1) return;
      if (this.skipping) this.skipping = false;
      else this.line(Buffer.concat(this.parts, this.held).toString('utf8').replace(/\r$/, ''));
      this.parts = [];
      this.held = 0;
      start = nl + 1;
    }
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.refuse(ErrorCode.ParseError, 'parse error: the line is not JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = typeof value === 'object' && value !== null && 'id' in value ? (value as { id: unknown }).id : null;
      this.refuse(ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 message', typeof id === 'string' || typeof id === 'number' ? id : null);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** An error answer (JSON-RPC's id is null when the request's own id cannot be read). */
  private refuse(code: number, message: string, id: string | number | null = null): void {
    const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
    this.output.write(`${body}\n`);
  }
}
