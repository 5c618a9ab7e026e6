// How `msnap backtest` results print: the whole result object for JSON and NDJSON, one flat
// summary row for CSV, Parquet and the terminal; trades as a list; sweep rows with their values.
import type { BacktestResult, BacktestSummary, Trade } from '../../backtest/result.js';
import { isoCell, type CellValue, type Column, type ParquetType, type RecordSchema } from './schema.js';

type SummaryKey = keyof BacktestSummary;

/** The summary's keys in the model's order, with their Parquet types. */
const SUMMARY_COLUMNS: [SummaryKey, ParquetType, boolean][] = [
  ['start_cash', 'double', false],
  ['end_cash', 'double', false],
  ['pnl', 'double', false],
  ['return', 'double', false],
  ['markets_traded', 'int64', false],
  ['orders', 'int64', false],
  ['fills', 'int64', false],
  ['rejected_orders', 'int64', false],
  ['expired_orders', 'int64', false],
  ['shares_bought', 'double', false],
  ['fees', 'double', false],
  ['wins', 'int64', false],
  ['losses', 'int64', false],
  ['win_rate', 'double', true],
  ['avg_pnl_per_market', 'double', true],
  ['max_drawdown', 'double', false],
  ['sharpe', 'double', true],
  ['brier', 'double', true],
  ['fills_without_depth', 'int64', false],
  ['unsettled_markets', 'int64', false],
];

/** The summary's maker keys, after the others, in runs with maker orders only. */
const MAKER_SUMMARY_COLUMNS: [SummaryKey, ParquetType, boolean][] = [
  ['rebates', 'double', false],
  ['maker_orders', 'int64', false],
  ['maker_fills', 'int64', false],
  ['maker_crossed', 'int64', false],
  ['maker_cancelled', 'int64', false],
];

/** Use to pick the schemas of a result: true when it reports maker fields (it posted, or was given --maker-fill). */
export function isMakerResult(r: Pick<BacktestResult, 'params'>): boolean {
  return r.params.maker_fill !== undefined;
}

function column<T>(name: string, value: (row: T) => CellValue, parquet: ParquetType, nullable = false, table?: (row: T) => string, dropOrder?: number): Column<T> {
  return { name, value, parquet, ...(nullable ? { nullable: true as const } : {}), ...(table ? { table } : {}), ...(dropOrder !== undefined ? { dropOrder } : {}) };
}

/** Times in a trades table: the clock only (the market id carries the day). */
function clock(ms: number): string {
  return isoCell(ms).slice(11, 23);
}

/** The summary columns of any row that holds a result's summary. */
function summaryColumns<T>(summary: (row: T) => BacktestSummary, maker = false): Column<T>[] {
  const plain = SUMMARY_COLUMNS.map(([key, type, nullable]) => column<T>(key, (r) => summary(r)[key] as CellValue, type, nullable));
  // A sweep row whose run posted nothing (a module posting in some combinations only) reports 0.
  const extra = maker ? MAKER_SUMMARY_COLUMNS.map(([key, type]) => column<T>(key, (r) => summary(r)[key] ?? 0, type)) : [];
  return [...plain, ...extra];
}

function resultSchema(maker: boolean): RecordSchema<BacktestResult> {
  return {
    columns: [
      column('strategy', (r) => r.strategy, 'string'),
      column('cash', (r) => r.params.cash, 'double'),
      column('latency_ms', (r) => r.params.latency_ms, 'int64'),
      column('fee_rate', (r) => r.params.fee_rate, 'double', true),
      column('no_book', (r) => r.params.no_book, 'string'),
      ...(maker ? [column<BacktestResult>('maker_fill', (r) => r.params.maker_fill, 'string')] : []),
      column('markets', (r) => r.data.markets, 'int64'),
      column('snapshots', (r) => r.data.snapshots, 'int64'),
      column('from', (r) => r.data.from, 'timestamp', true, (r) => isoCell(r.data.from)),
      column('to', (r) => r.data.to, 'timestamp', true, (r) => isoCell(r.data.to)),
      ...summaryColumns<BacktestResult>((r) => r.summary, maker),
    ],
    json: (r) => r,
  };
}

/** A single run: JSON/NDJSON get the whole result; CSV, Parquet and the terminal one summary row. */
export const RESULT_SCHEMA: RecordSchema<BacktestResult> = resultSchema(false);
/** RESULT_SCHEMA with the maker fields, for a result that reports them (isMakerResult). */
export const MAKER_RESULT_SCHEMA: RecordSchema<BacktestResult> = resultSchema(true);

/** `--trades FILE` and the terminal's first trades. */
export const TRADE_SCHEMA: RecordSchema<Trade> = {
  columns: [
    column('market_id', (t) => t.market_id, 'string'),
    column('side', (t) => t.side, 'dictionary'),
    column('action', (t) => t.action, 'dictionary'),
    column('decided_at', (t) => t.decided_at, 'timestamp', false, (t) => clock(t.decided_at), 2),
    column('filled_at', (t) => t.filled_at, 'timestamp', false, (t) => clock(t.filled_at)),
    column('shares_requested', (t) => t.shares_requested, 'double', false, undefined, 1),
    column('shares', (t) => t.shares, 'double'),
    column('vwap', (t) => t.vwap, 'double'),
    column('fee', (t) => t.fee, 'double'),
    column('cash_after', (t) => t.cash_after, 'double'),
    column('depth', (t) => t.depth, 'boolean', false, undefined, 4),
    column('levels', (t) => t.levels, 'int64', false, undefined, 3),
    column('fee_shares', (t) => t.fee_shares, 'double', false, undefined, 5),
  ],
};

/** TRADE_SCHEMA with each line's kind and rebate, for a result with maker fields. */
export const MAKER_TRADE_SCHEMA: RecordSchema<Trade> = {
  columns: [
    ...TRADE_SCHEMA.columns,
    column('kind', (t) => t.kind ?? 'taker', 'dictionary'),
    column('rebate', (t) => t.rebate ?? 0, 'double', false, undefined, 6),
  ],
};

/** One combination of a sweep: the swept values by path, and its run's summary. */
export interface SweepRow {
  values: Record<string, unknown>;
  summary: BacktestSummary;
}

/** Sweep rows: a column per swept path (in --sweep order), then the summary. */
export function sweepSchema(paths: readonly string[], numeric: ReadonlySet<string>, maker = false): RecordSchema<SweepRow> {
  return {
    columns: [
      ...paths.map((p) => column<SweepRow>(p, (r) => r.values[p] as CellValue, numeric.has(p) ? 'double' : 'string')),
      ...summaryColumns<SweepRow>((r) => r.summary, maker),
    ],
  };
}
