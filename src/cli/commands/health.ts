// `msnap health`: is the service up, which version, and how far away.
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { HEALTH_SCHEMA } from '../output/schemas/record-schemas.js';

/** Ask the service for its health and write status, version, time and round trip. */
export async function runHealth(deps: CliDeps): Promise<void> {
  const h = await (await deps.client({ keyOptional: true })).health();
  await (await deps.exporter()).record(HEALTH_SCHEMA, {
    status: h.status,
    version: h.version,
    time: h.time,
    rtt_ms: Math.round(h.rttMs * 10) / 10,
  });
}

/** The `health` command. */
export function healthCommand(ctx: CliContext): Command {
  return new Command('health')
    .description('Check the service: status, version and round-trip time (no key needed)')
    .addHelpText(
      'after',
      `
Examples:
  $ msnap health
  $ msnap health --base-url http://127.0.0.1:8787 --json`,
    )
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, (deps) => runHealth(deps));
    });
}
