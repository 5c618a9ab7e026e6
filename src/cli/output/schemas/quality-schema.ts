// How `msnap quality` reports print: counts as columns for CSV and tables (the first gaps and
// jumps as short text), the whole report with its lists for JSON.
import type { Gap, Jump, QualityReport } from '../../../analysis/quality.js';
import { isoCell, type RecordSchema } from './schema.js';

function duration(ms: number): string {
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(1)}m` : `${(ms / 1000).toFixed(3).replace(/\.?0+$/, '')}s`;
}

/** A gap as `2025-11-22T00:01:00.125Z+10s` (where it starts and how long nothing arrived). */
function gapText(g: Gap): string {
  return `${isoCell(g.from)}+${duration(g.to - g.from)}`;
}

function jumpText(j: Jump): string {
  return `${isoCell(j.time)} ${j.from}->${j.to}`;
}

function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** `msnap quality`; a narrow terminal drops the details first (dropOrder), never the counts that add up to problems. */
export const QUALITY_SCHEMA: RecordSchema<QualityReport> = {
  columns: [
    { name: 'market_id', value: (r) => r.market_id },
    { name: 'window_start', value: (r) => r.window_start, table: false },
    { name: 'window_end', value: (r) => r.window_end, table: false },
    { name: 'expected', value: (r) => r.expected, table: false },
    { name: 'present', value: (r) => r.present, label: 'present/expected', table: (r) => `${r.present}/${r.expected} (${percent(r.expected ? r.present / r.expected : 0)})` },
    { name: 'gaps', value: (r) => r.gaps },
    { name: 'missing', value: (r) => r.missing, table: false },
    { name: 'longest_gap_ms', value: (r) => r.longest_gap_ms, label: 'longest gap', table: (r) => (r.gaps ? duration(r.longest_gap_ms) : ''), dropOrder: 2 },
    { name: 'first_gaps', value: (r) => r.first_gaps.map(gapText).join(' '), label: 'first gaps', table: (r) => r.first_gaps.slice(0, 2).map(gapText).join(' '), dropOrder: 1 },
    { name: 'duplicates', value: (r) => r.duplicates, label: 'dup' },
    { name: 'out_of_order', value: (r) => r.out_of_order, label: 'order' },
    { name: 'bad_probabilities', value: (r) => r.bad_probabilities, label: 'bad prob' },
    { name: 'sum_outside', value: (r) => r.sum_outside, label: 'up+down off' },
    { name: 'jumps', value: (r) => r.jumps },
    { name: 'first_jumps', value: (r) => r.first_jumps.map(jumpText).join(' '), table: false },
    { name: 'orderbook_coverage', value: (r) => Math.round(r.orderbook_coverage * 10_000) / 10_000, label: 'orderbook', table: (r) => percent(r.orderbook_coverage), dropOrder: 3 },
    { name: 'problems', value: (r) => r.problems },
  ],
  json: (r) => r,
};
