// `msnap mcp`: a Model Context Protocol server on stdin/stdout for AI assistants, with tools over
// the same client as every command (--base-url/--api-key/--api) or over a local store (--db).
// stdout carries the protocol only; notes and warnings go to stderr as usual.
import type { Readable } from 'node:stream';
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { runWithDeps } from '../deps.js';
import { addLocalDbOption, readGlobals } from '../global-options.js';
import { isPostgresUrl } from '../../store/db-path.js';

/** The `mcp` command. */
export function mcpCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('mcp'))
    .description('Serve MCP tools (markets, a market, snapshot summaries, at, quality, backtest) on stdin/stdout for AI assistants')
    .addHelpText(
      'after',
      `
Tools: list_markets, describe_market, snapshots_summary, at, quality, backtest (a rule strategy). Answers are JSON text, bounded
in size; a failure is a tool error worded as the CLI's message. The key is read as by every command
(--api-key, MSNAP_API_KEY or the active stored key) and never appears in an answer.

Register it with an MCP client, e.g. in its JSON configuration:
  { "mcpServers": { "msnap": { "command": "msnap", "args": ["mcp"], "env": { "MSNAP_API_KEY": "..." } } } }
  { "mcpServers": { "msnap-local": { "command": "msnap", "args": ["mcp", "--db", "/data/msnap.db"] } } }`,
    )
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, async (deps) => {
        // The SDK and the reader load only when this command runs (every command builds this one).
        const [{ serveMcp }, { MsnapReader }] = await Promise.all([import('../../mcp/mcp-server.js'), import('../../lib/reader.js')]);
        let reader: Promise<InstanceType<typeof MsnapReader>> | undefined;
        const db = readGlobals(cmd).db;
        await serveMcp(
          {
            // Opened on the first tool call: a missing key is then that call's error, not a dead server.
            reader: () => (reader ??= deps.client().then((core) => new MsnapReader(core, { now: deps.now, onNote: deps.note }))).catch((err: unknown) => {
              reader = undefined;
              throw err;
            }),
            now: deps.now,
            redact: deps.redact,
            // A PostgreSQL store is read through the reader, as the CLI's backtest reads it.
            ...(db !== undefined && !isPostgresUrl(db) ? { storeFile: db } : {}),
          },
          ctx.stdin as Readable,
          ctx.stdout,
        );
      });
    });
}
