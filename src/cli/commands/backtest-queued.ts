// `msnap backtest … --sweep … --queue redis://HOST`: the sweep's combinations go on a Redis job
// queue (BullMQ) for `msnap worker` processes on any machine, and their summaries come back into
// the local sweep's order, so the table is the local sweep's byte for byte (docs/sweep-queue.md).
import type { Market } from '../../domain/market.js';
import type { BacktestSummary } from '../../backtest/model/result.js';
import type { SnapshotRange } from '../../backtest/series/snapshot-series.js';
import { connectQueue } from '../../backtest/queue/queue-connection.js';
import { marketsFingerprint } from '../../backtest/queue/fingerprint.js';
import { gatherQueuedSweep } from '../../backtest/queue/gather.js';
import { readStrategyText } from '../../backtest/queue/strategy-text.js';
import { sweepId, type QueuedSweep } from '../../backtest/queue/sweep-job.js';
import type { CliDeps } from '../deps.js';
import type { Progress } from '../output/terminal/progress.js';
import type { BacktestParams } from '../../backtest/engine/params.js';
import type { RedisTarget } from '../../ratelimit/redis-url.js';

/** The --queue flags of `msnap backtest`. */
export interface QueueFlags {
  target: RedisTarget;
  name: string;
  resume: boolean;
  chunk: number;
}

/** What the queued sweep is of: the checked backtest options it needs. */
export interface QueuedSweepInput {
  /** The strategy file. */
  strategy: string;
  /** The --set values every combination shares. */
  sets: string[];
  params: Partial<BacktestParams>;
  /** The selection as the user wrote it, for the workers' log lines. */
  selection: string;
}

/** Use for a checked sweep with --queue: every combination's summary, in `sets`' order. */
export async function runQueuedSweep(
  opts: QueuedSweepInput,
  queue: QueueFlags,
  sets: string[][],
  markets: readonly Market[],
  range: SnapshotRange,
  progress: Progress,
  deps: CliDeps,
): Promise<BacktestSummary[]> {
  const base: Omit<QueuedSweep, 'id'> = {
    strategy: await readStrategyText(opts.strategy),
    selection: opts.selection,
    marketIds: markets.map((m) => m.market_id),
    range,
    params: opts.params,
    fingerprint: marketsFingerprint(markets, range),
  };
  const items = sets.map((s, index) => ({ index, sets: [...opts.sets, ...s] }));
  const sweep: QueuedSweep = { id: sweepId(base, items, queue.chunk), ...base };
  const conn = await connectQueue(queue.target, queue.name);
  // Killed or stopped, the submitter leaves the jobs running: the same command with --resume gathers them.
  const unregister = deps.onInterrupt(() => deps.writeErr(`msnap: ${sweep.id} stays on queue ${queue.name}: run the same command with --resume to gather it\n`));
  try {
    return await gatherQueuedSweep(conn, sweep, items, {
      chunk: queue.chunk,
      resume: queue.resume,
      onQueued: (added, jobs) => {
        const already = added < jobs ? ` (${jobs - added} there already)` : '';
        deps.info(`msnap: ${sweep.id}: ${items.length} combinations in ${jobs} job${jobs === 1 ? '' : 's'} on ${conn.display} queue ${queue.name}${already}`);
      },
      onProgress: (p) =>
        progress.update({ pages: p.jobsDone, rows: p.done, total: p.total, unit: 'job', extra: `${p.workers} worker${p.workers === 1 ? '' : 's'} seen` }),
    });
  } finally {
    unregister();
    await conn.close();
  }
}
