// The fingerprint of a sweep's data: what the submitter selected, summed up so that a worker on
// another machine can tell, before running anything, whether its store holds the same markets.
// It is built from the market records alone (ids, snapshot counts, times, outcomes), so both
// sides compute it without reading a snapshot.
import { createHash } from 'node:crypto';
import type { Market } from '../../domain/market.js';
import type { SnapshotRange } from '../series/snapshot-series.js';

/** What a worker compares with the submitter's before it runs a job. */
export interface MarketsFingerprint {
  markets: number;
  /** The markets' snapshot counts, summed. */
  snapshots: number;
  /** The first market's start and the last market's end (epoch ms), null without markets. */
  first: number | null;
  last: number | null;
  /** sha256 (hex, 16 digits) over every market's record line and the range. */
  hash: string;
}

/** Use on both sides of a queued sweep: the fingerprint of `markets` (oldest first) read within `range`. */
export function marketsFingerprint(markets: readonly Market[], range: SnapshotRange): MarketsFingerprint {
  const h = createHash('sha256');
  h.update(`range ${range.from ?? '-'} ${range.to ?? '-'}\n`);
  for (const m of markets) {
    h.update(`${m.market_id} ${m.snapshot_count} ${m.start_time} ${m.end_time} ${m.winner ?? '-'} ${m.price_start ?? '-'} ${m.price_end ?? '-'}\n`);
  }
  return {
    markets: markets.length,
    snapshots: markets.reduce((n, m) => n + m.snapshot_count, 0),
    first: markets.length > 0 ? Math.min(...markets.map((m) => m.start_time)) : null,
    last: markets.length > 0 ? Math.max(...markets.map((m) => m.end_time)) : null,
    hash: h.digest('hex').slice(0, 16),
  };
}

/** Use in the refusal line: how `local` (the worker's store) differs from `wanted` (the submitter's), in a few words. */
export function fingerprintDifference(wanted: MarketsFingerprint, local: MarketsFingerprint): string {
  const parts: string[] = [];
  if (wanted.markets !== local.markets) parts.push(`${local.markets} markets here, ${wanted.markets} wanted`);
  if (wanted.snapshots !== local.snapshots) parts.push(`${local.snapshots} snapshots here, ${wanted.snapshots} wanted`);
  if (wanted.first !== local.first || wanted.last !== local.last) parts.push(`times ${local.first}..${local.last} here, ${wanted.first}..${wanted.last} wanted`);
  if (parts.length === 0) parts.push('the same counts but other market records (winner or prices)');
  return `fingerprint ${local.hash} here, ${wanted.hash} wanted: ${parts.join('; ')}`;
}
