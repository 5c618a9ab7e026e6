// `--dry-run` of pull and snapshots: what a run would fetch (markets, rows, requests) and how long
// that takes at the key's limits, worked out from the market list alone (no snapshot request).
import type { Market } from '../../domain/market.js';
import type { Limits, MsnapApi } from '../../client/types.js';
import { DEFAULT_SNAPSHOT_PAGE } from '../../client/pages/snapshot-pager.js';

/** One market's share of a run. */
export interface PlannedMarket {
  marketId: string;
  rows: number;
  requests: number;
}

/** What a run would fetch. */
export interface PullPlan {
  markets: PlannedMarket[];
  rows: number;
  requests: number;
  /** Markets the store already holds completely (pull only). */
  complete: number;
  /** Rows a request asks for. */
  pageSize: number;
}

/** Use for a plan's page size: what the run will ask per request (v4 pages hold at most 1,000 rows). */
export async function snapshotPageSize(client: MsnapApi): Promise<number> {
  if ((await client.capabilities().service?.dialect()) !== 'v4') return DEFAULT_SNAPSHOT_PAGE;
  // Loaded already by the client that speaks v4.
  const { V4_SNAPSHOTS_PAGE_MAX } = await import('../../client/dialects/v4.js');
  return Math.min(DEFAULT_SNAPSHOT_PAGE, V4_SNAPSHOTS_PAGE_MAX);
}

/** Use for a dry run: `stored` gives how many rows of a market the destination already holds (0 for an export). */
export function planPull(markets: readonly Market[], stored: (marketId: string) => number, pageSize = DEFAULT_SNAPSHOT_PAGE): PullPlan {
  const plan: PullPlan = { markets: [], rows: 0, requests: 0, complete: 0, pageSize };
  for (const m of markets) {
    const have = stored(m.market_id);
    const rows = Math.max(0, m.snapshot_count - have);
    if (rows === 0 && have > 0) {
      plan.complete++;
      continue;
    }
    const requests = Math.max(1, Math.ceil(rows / pageSize));
    plan.markets.push({ marketId: m.market_id, rows, requests });
    plan.rows += rows;
    plan.requests += requests;
  }
  return plan;
}

/** The least time n requests take under a token bucket of `burst`/s and a sliding minute of `perMinute`. */
export function pacedSeconds(n: number, perMinute: number, burst: number): number {
  if (n <= 0) return 0;
  const bucket = Math.max(0, (n - burst) / burst);
  const minute = Number.isFinite(perMinute) && perMinute > 0 ? Math.floor((n - 1) / perMinute) * 60 : 0;
  return Math.max(bucket, minute);
}

/** The dry run's report: one line per market, then the totals and the time at the key's limits. */
export function dryRunText(plan: PullPlan, limits: Limits | undefined, destination: string | undefined): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const lines = plan.markets.map((m) => `  ${m.marketId}: ${n(m.rows)} rows, ${n(m.requests)} request${m.requests === 1 ? '' : 's'}`);
  let time = '';
  if (limits) {
    const { requests_per_minute: rpm, burst_per_second: burst } = limits.rate_limit;
    // v4 may have no minute cap (null): only the burst paces then.
    const s = pacedSeconds(plan.requests, rpm ?? Infinity, burst);
    time = `, ${s < 1 ? 'under a second' : `about ${n(Math.ceil(s))} s`} at the ${limits.plan} key's limits (${rpm === null ? 'no minute cap' : `${n(rpm)}/min`}, ${n(burst)}/s)`;
  }
  const done = plan.complete > 0 ? `; ${n(plan.complete)} already complete in ${destination}` : '';
  return [
    `dry run: ${n(plan.markets.length)} market${plan.markets.length === 1 ? '' : 's'} to fetch${done}`,
    ...lines,
    `total: ${n(plan.rows)} rows in ${n(plan.requests)} snapshot request${plan.requests === 1 ? '' : 's'} of up to ${n(plan.pageSize)} rows${time}; nothing fetched`,
  ].join('\n');
}
