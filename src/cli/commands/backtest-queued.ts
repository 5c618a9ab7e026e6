// `msnap backtest … --sweep … --queue redis://HOST`: the sweep's combinations go on a Redis job
// queue (BullMQ) for `msnap worker` processes on any machine, and their summaries come back into
// the local sweep's order, so the table is the local sweep's byte for byte (docs/sweep-queue.md).
import type { Market } from '../../domain/market.js';
import type { BacktestSummary } from '../../backtest/result.js';
import type { SnapshotRange } from '../../backtest/snapshot-series.js';
import { connectQueue } from '../../backtest/queue/queue-connection.js';
import { marketsFingerprint } from '../../backtest/queue/fingerprint.js';
import { gatherQueuedSweep } from '../../backtest/queue/gather.js';
import { readStrategyText } from '../../backtest/queue/strategy-text.js';
import { sweepId, type QueuedSweep } from '../../backtest/queue/sweep-job.js';
import type { CliDeps } from '../deps.js';
import type { Progress } from '../output/progress.js';
import type { BacktestOptions } from './backtest-run.js';

/** The selection as the user wrote it, for the workers' log lines. */
function selectionText(opts: BacktestOptions): string {
  const t = opts.target;
  const words = 'marketId' in t ? [t.marketId] : [t.coin, t.marketType];
  if (opts.last !== undefined) words.push(`--last ${opts.last}`);
  if (opts.from !== undefined) words.push(`--from ${new Date(opts.from).toISOString()}`);
  if (opts.to !== undefined) words.push(`--to ${new Date(opts.to).toISOString()}`);
  return words.join(' ');
}

/** Use for a checked sweep with --queue: every combination's summary, in `sets`' order. */
export async function runQueuedSweep(
  opts: BacktestOptions,
  queue: NonNullable<BacktestOptions['queue']>,
  sets: string[][],
  markets: readonly Market[],
  range: SnapshotRange,
  progress: Progress,
  deps: CliDeps,
): Promise<BacktestSummary[]> {
  const base: Omit<QueuedSweep, 'id'> = {
    strategy: await readStrategyText(opts.strategy),
    selection: selectionText(opts),
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
