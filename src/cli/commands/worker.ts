// `msnap worker --queue redis://HOST --db STORE`: run the combinations of sweeps submitted with
// `msnap backtest … --sweep … --queue` (docs/sweep-queue.md), one job at a time, on this machine's
// copy of the data, until SIGTERM or Ctrl-C.
import os from 'node:os';
import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { parseRedisUrl } from '../../ratelimit/redis-url.js';
import { countArg, DEFAULT_QUEUE_NAME, queueNameArg } from '../../domain/arguments.js';
import type { CliContext } from '../context.js';
import { runWithDeps } from '../deps.js';
import { addLocalDbOption, readGlobals } from '../global-options.js';
import { untilStopSignal } from '../stop-signals.js';
import type { WorkerOptions } from './worker-run.js';

interface RawFlags {
  queue?: string;
  queueName?: string;
  db?: string;
  lockMs?: string;
  name?: string;
}

const DEFAULT_LOCK_MS = 30_000;

/** Check the flags; every problem is a UsageError. */
export function parseWorkerArgs(flags: RawFlags, defaultName: string): WorkerOptions {
  if (flags.queue === undefined) throw new UsageError('msnap worker needs --queue redis://HOST (the Redis the sweeps are submitted to)');
  if (flags.db === undefined) throw new UsageError('msnap worker needs --db STORE (an SQLite file or postgres:// URL holding the sweeps\' markets)');
  return {
    queue: parseRedisUrl(flags.queue),
    queueName: queueNameArg(flags.queueName),
    db: flags.db,
    lockMs: flags.lockMs !== undefined ? countArg(flags.lockMs, '--lock-ms', 100) : DEFAULT_LOCK_MS,
    name: flags.name ?? defaultName,
  };
}

/** The `worker` command. */
export function workerCommand(ctx: CliContext): Command {
  return addLocalDbOption(new Command('worker'))
    .description('Run the combinations of sweeps submitted with backtest --sweep --queue, on this machine, until SIGTERM')
    .option('--queue <redis-url>', 'the Redis the sweeps are queued on (redis://[user:password@]host[:port][/db])')
    .option('--queue-name <name>', `the queue (default ${DEFAULT_QUEUE_NAME})`)
    .option('--lock-ms <ms>', `a job whose worker stops answering runs again elsewhere after this long (default ${DEFAULT_LOCK_MS})`)
    .option('--name <name>', 'this worker in results and logs (default host:pid)')
    .addHelpText(
      'after',
      `
Each job is checked before it runs: the markets the submitter selected must be in --db with the
same records (a fingerprint); a store that differs puts the job back for the other workers and
stops this one (exit 11). SIGTERM or Ctrl-C puts a running job back on the queue and exits 0.
Examples:
  $ msnap worker --queue redis://10.0.0.5 --db msnap.db
  $ msnap worker --queue redis://10.0.0.5 --db postgres://msnap@10.0.0.6/msnap --name box-2`,
    )
    .action(async (flags: RawFlags, cmd: Command) => {
      const globals = readGlobals(cmd);
      const opts = parseWorkerArgs({ ...flags, ...(globals.db !== undefined ? { db: globals.db } : {}) }, `${os.hostname()}:${process.pid}`);
      // BullMQ and the engine load when a worker runs, not at every CLI start.
      const { runWorker } = await import('./worker-run.js');
      await runWithDeps(ctx, cmd, (deps) => runWorker(opts, deps, untilStopSignal()));
    });
}
