// What a strategy is: a rule file (docs/backtest-model.md "Rule strategies") or a module with hooks. The
// strategy decides; the engine owns orders, fills, fees and statistics.
import type { Market } from '../domain/market.js';
import type { OutcomeSide } from '../domain/market-series.js';
import type { MarketLine } from './result.js';
import { UsageError } from '../errors.js';

/** Fields a rule condition can read (docs/backtest-model.md "Fields"). */
export const RULE_FIELDS = ['price', 'price_up', 'price_down', 'side_price', 'elapsed_ms', 'remaining_ms', 'change', 'bid', 'ask'] as const;
/** Comparison operators of a rule condition. */
export const RULE_OPS = ['<', '<=', '>', '>=', '=='] as const;

/** A field a condition reads. */
export type RuleField = (typeof RULE_FIELDS)[number];
/** A condition's comparison. */
export type RuleOp = (typeof RULE_OPS)[number];

/** One condition: `field op value`. */
export interface RuleCondition {
  field: RuleField;
  op: RuleOp;
  value: number;
}

/** A rule strategy as its JSON file holds it (optional keys take the model's defaults). */
export interface RuleStrategy {
  name?: string;
  side: OutcomeSide;
  size: number;
  entry: RuleCondition[];
  exit?: RuleCondition[];
  max_entries?: number;
  max_price?: number;
  min_price?: number;
}

/** A rule strategy checked, with every default filled in. */
export interface CheckedRule extends Required<Omit<RuleStrategy, 'exit'>> {
  exit: RuleCondition[] | undefined;
}

/** A snapshot as a module's onSnapshot sees it (orderbooks in the contract's shape, when present). */
export interface StrategySnapshot {
  market_id: string;
  time: number;
  price: number;
  price_up: number;
  price_down: number;
  elapsed_ms: number;
  remaining_ms: number;
  change: number;
  orderbook_up: { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] } | undefined;
  orderbook_down: { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] } | undefined;
}

/** What a module's hooks are handed: orders, the market's position, cash, and its --set params. */
export interface StrategyContext {
  /** Decide a buy of `shares` of `side`; false (nothing placed) when an order is already pending. */
  buy(side: OutcomeSide, shares: number, opts?: { maxPrice?: number }): boolean;
  /** Decide a sell; the engine never sells more than the position holds. */
  sell(side: OutcomeSide, shares: number, opts?: { minPrice?: number }): boolean;
  /** Shares of `side` held in the current market. */
  position(side: OutcomeSide): number;
  readonly cash: number;
  readonly pending: boolean;
  readonly market: Market;
  readonly params: Record<string, unknown>;
}

/** A market's result as `markets[]` reports it; undefined for a market without a fill. */
export type MarketResult = MarketLine;

/** A JavaScript strategy: the default export of a `.js`/`.mjs` module. */
export interface ModuleStrategy {
  name?: string;
  /** Defaults of the values `--set` may override (the module reads them from ctx.params); a value given must fit its default's type. */
  params?: Record<string, unknown>;
  /** The file it was loaded from, as given (set by loadStrategy): error lines name it with the line that threw. */
  source?: string;
  onSnapshot(snapshot: StrategySnapshot, ctx: StrategyContext): void;
  onMarketStart?(market: Market, ctx: StrategyContext): void;
  onMarketEnd?(market: Market, result: MarketResult | undefined, ctx: StrategyContext): void;
}

/** Either kind; runBacktest and loadStrategy take both. */
export type Strategy = RuleStrategy | ModuleStrategy;

/** Use to tell the kinds apart. */
export function isModuleStrategy(s: Strategy): s is ModuleStrategy {
  return typeof (s as ModuleStrategy).onSnapshot === 'function';
}

const RULE_KEYS = ['name', 'side', 'size', 'entry', 'exit', 'max_entries', 'max_price', 'min_price'];
const CONDITION_KEYS = ['field', 'op', 'value'];

/** Use before any data is read: the rule checked (UsageError naming the bad part) with defaults filled in. */
export function checkRule(raw: unknown, fallbackName = 'strategy'): CheckedRule {
  if (!isObject(raw)) throw new UsageError('a rule strategy must be a JSON object');
  for (const key of Object.keys(raw)) {
    if (!RULE_KEYS.includes(key)) throw new UsageError(`strategy: unknown field '${key}'; use: ${RULE_KEYS.join(', ')}`);
  }
  const name = raw.name ?? fallbackName;
  if (typeof name !== 'string' || name === '') throw new UsageError('strategy: name must be a non-empty string');
  if (raw.side !== 'up' && raw.side !== 'down') throw new UsageError(`strategy: side must be 'up' or 'down', got ${JSON.stringify(raw.side)}`);
  const size = positiveNumber(raw.size, 'size');
  const maxEntries = raw.max_entries ?? 1;
  if (!(Number.isSafeInteger(maxEntries) && (maxEntries as number) >= 1)) {
    throw new UsageError(`strategy: max_entries must be a whole number >= 1, got ${JSON.stringify(maxEntries)}`);
  }
  return {
    name,
    side: raw.side,
    size,
    entry: conditions(raw.entry, 'entry', true)!,
    exit: conditions(raw.exit, 'exit', false),
    max_entries: maxEntries as number,
    max_price: probability(raw.max_price ?? 1, 'max_price'),
    min_price: probability(raw.min_price ?? 0, 'min_price'),
  };
}

function conditions(raw: unknown, where: string, required: boolean): RuleCondition[] | undefined {
  if (raw === undefined && !required) return undefined;
  if (!Array.isArray(raw)) throw new UsageError(`strategy: ${where} must be a list of conditions ({ "field", "op", "value" })`);
  return raw.map((c: unknown, i) => {
    const at = `${where}.${i}`;
    if (!isObject(c)) throw new UsageError(`strategy: ${at} must be an object { "field", "op", "value" }`);
    for (const key of Object.keys(c)) {
      if (!CONDITION_KEYS.includes(key)) throw new UsageError(`strategy: ${at}: unknown key '${key}'; use: field, op, value`);
    }
    if (!(RULE_FIELDS as readonly unknown[]).includes(c.field)) {
      throw new UsageError(`strategy: ${at}: unknown field ${JSON.stringify(c.field)}; use one of: ${RULE_FIELDS.join(', ')}`);
    }
    if (!(RULE_OPS as readonly unknown[]).includes(c.op)) {
      throw new UsageError(`strategy: ${at}: unknown op ${JSON.stringify(c.op)}; use one of: ${RULE_OPS.join(' ')}`);
    }
    if (typeof c.value !== 'number' || !Number.isFinite(c.value)) throw new UsageError(`strategy: ${at}: value must be a number, got ${JSON.stringify(c.value)}`);
    return { field: c.field as RuleField, op: c.op as RuleOp, value: c.value };
  });
}

function positiveNumber(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new UsageError(`strategy: ${what} must be a number > 0, got ${JSON.stringify(v)}`);
  return v;
}

function probability(v: unknown, what: string): number {
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new UsageError(`strategy: ${what} must be a number in [0, 1], got ${JSON.stringify(v)}`);
  return v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
