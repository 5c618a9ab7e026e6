// `msnap mcp`'s Model Context Protocol server (the official SDK): the tools of tools.ts, their
// arguments described for the model, their answers as JSON text capped in size, and every failure
// a tool error worded as the CLI words it (never a protocol error, never a key).
import type { Readable, Writable } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { describeError } from '../errors.js';
import type { MsnapReader } from '../lib/reader.js';
import { VERSION } from '../version.js';
import { LineTransport } from './line-transport.js';
import { at, backtest, BACKTEST_MAX_MARKETS, BACKTEST_MAX_SNAPSHOTS, describeMarket, listMarkets, quality, snapshotsSummary, TOOL_LIMITS } from './tools.js';

/** The most text one answer holds; the tools' own limits keep them well under it. */
const MAX_ANSWER_CHARS = 200_000;

/** What the server needs: the reader (opened on the first call), the clock, and a redactor for the key. */
export interface McpDeps {
  reader: () => Promise<MsnapReader>;
  now: () => number;
  /** Removes the configured key from any text (the client's messages already omit it: a second guard). */
  redact: (text: string) => string;
  /** The SQLite file of `--db`: the backtest tool reads its markets straight from its blocks, as the CLI's backtest does. */
  storeFile?: string;
}

const marketId = z.string().min(1).max(200).describe('a market id, e.g. btc-updown-5m-1763769600');
const time = z
  .union([z.number(), z.string().max(64)])
  .describe('epoch ms, epoch seconds (10 digits), ISO 8601 with a zone, 90s/30m/2h/3d ago, or now');

/** Use once per process: serves the tools on `stdin`/`stdout` until the client closes them. */
export async function serveMcp(deps: McpDeps, stdin: Readable, stdout: Writable): Promise<void> {
  const server = new McpServer({ name: 'msnap', version: VERSION });
  const answer = async (fn: (reader: MsnapReader) => Promise<unknown>): Promise<CallToolResult> => {
    try {
      return text(deps.redact(JSON.stringify(await fn(await deps.reader()))), false);
    } catch (err) {
      return text(deps.redact(describeError(err).lines.join('\n')), true);
    }
  };

  server.registerTool(
    'list_markets',
    {
      description: `Markets newest first (as \`msnap markets\`), up to ${TOOL_LIMITS.markets}. Each has market_id, coin, market_type, status, start/end time, prices at start and end, winner, snapshot_count.`,
      inputSchema: {
        coin: z.string().max(8).optional().describe('BTC, ETH or SOL'),
        type: z.string().max(8).optional().describe('5m, 15m, 1hr, 4hr or 24hr'),
        status: z.string().max(16).optional().describe('active or resolved'),
        limit: z.number().int().optional().describe(`1 to ${TOOL_LIMITS.markets} (default 20)`),
        offset: z.number().int().min(0).optional().describe('skip this many of the newest'),
      },
    },
    (args) => answer((r) => listMarkets(r, args)),
  );
  server.registerTool(
    'describe_market',
    {
      description: 'One market: its record (status, start and end, winner, snapshot_count) with its span and the share of its 8-per-second grid it holds.',
      inputSchema: { market_id: marketId },
    },
    (args) => answer((r) => describeMarket(r, args)),
  );
  server.registerTool(
    'snapshots_summary',
    {
      description: `A market's snapshots within from/to summarised in one pass: row count, first and last time, first/last/min/max of price, price_up and price_down, and an evenly spaced sample of at most ${TOOL_LIMITS.sample} snapshots.`,
      inputSchema: {
        market_id: marketId,
        from: time.optional(),
        to: time.optional(),
        sample: z.number().int().optional().describe(`snapshots in the sample, 0 to ${TOOL_LIMITS.sample} (default 20)`),
      },
    },
    (args) => answer((r) => snapshotsSummary(r, args)),
  );
  server.registerTool(
    'at',
    {
      description: 'The snapshot nearest a time in a market (within 2 s), as `msnap at`: market_id, ts, delta_ms, snapshot.',
      inputSchema: { market_id: marketId, time },
    },
    (args) => answer((r) => at(r, args)),
  );
  server.registerTool(
    'quality',
    {
      description: "A market's data-quality report, as `msnap quality`: grid coverage, gaps, duplicates, out-of-order times, bad probabilities, up + down off 1, price jumps, orderbook coverage, problems.",
      inputSchema: {
        market_id: marketId,
        sum_tolerance: z.number().optional().describe('how far price_up + price_down may be from 1 (default 0.05)'),
      },
    },
    (args) => answer((r) => quality(r, args, deps.now())),
  );

  server.registerTool(
    'backtest',
    {
      description:
        `Test a rule strategy as \`msnap backtest\` does (fills walk the orderbook, latency, taker fees, settlement) on one market or the latest markets of a coin and type (at most ${BACKTEST_MAX_MARKETS} markets and ${BACKTEST_MAX_SNAPSHOTS.toLocaleString('en-US')} snapshots a call: narrow from/to for more). ` +
        'The rule is the JSON of a rule file: { name, side: "up"|"down", size, entry: [{ field, op, value }], exit?, max_entries?, max_price?, min_price? }. ' +
        'Answers the summary (pnl, return, fills, win rate, drawdown, Sharpe, Brier) with the first 50 market lines and trades.',
      inputSchema: {
        rule: z.record(z.string(), z.unknown()).describe('the rule strategy object (never code)'),
        market_id: marketId.optional(),
        coin: z.string().max(8).optional().describe('with type: BTC, ETH or SOL'),
        type: z.string().max(8).optional().describe('with coin: 5m, 15m, 1hr, 4hr or 24hr'),
        last: z.number().int().min(1).optional().describe(`with coin and type: the latest N markets with snapshots (default 1; at most ${BACKTEST_MAX_MARKETS})`),
        from: time.optional(),
        to: time.optional(),
        cash: z.number().optional().describe('starting cash in USDC (default 1000)'),
        latency_ms: z.number().optional().describe('orders execute on the first snapshot this long after the decision (default 0)'),
        fee_rate: z.number().optional().describe('one taker fee rate for every market (default: each market fee schedule; 0: no fees)'),
      },
    },
    (args, extra) =>
      answer((r) => backtest(r, args, { now: deps.now, signal: extra.signal, ...(deps.storeFile !== undefined ? { storeFile: deps.storeFile } : {}) })),
  );

  const transport = new LineTransport(stdin, stdout);
  const closed = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

function text(body: string, isError: boolean): CallToolResult {
  const capped = body.length > MAX_ANSWER_CHARS ? `${body.slice(0, MAX_ANSWER_CHARS)}… (cut at ${MAX_ANSWER_CHARS} characters)` : body;
  return { content: [{ type: 'text', text: capped }], ...(isError ? { isError: true } : {}) };
}
