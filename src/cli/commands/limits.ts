// `msnap limits`: what the key may do: plan, trial, rate limits, data window, keys, usage now.
import { Command } from 'commander';
import type { CliContext } from '../context.js';
import { runWithDeps, type CliDeps } from '../deps.js';
import { LIMITS_SCHEMA } from '../output/schemas/record-schemas.js';

/** Fetch and write the key's limits. */
export async function runLimits(deps: CliDeps): Promise<void> {
  const limits = await (await deps.client()).limits();
  await (await deps.exporter()).record(LIMITS_SCHEMA, limits);
}

/** The `limits` command. */
export function limitsCommand(ctx: CliContext): Command {
  return new Command('limits')
    .description("Show the key's plan, trial, rate limits, data window, keys and current usage")
    .addHelpText(
      'after',
      `
Examples:
  $ msnap limits
  $ msnap limits --json | jq .rate_limit
  $ msnap limits --api-key "$OTHER_KEY"`,
    )
    .action(async (_flags: unknown, cmd: Command) => {
      await runWithDeps(ctx, cmd, (deps) => runLimits(deps));
    });
}
