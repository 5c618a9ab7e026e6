// What a strategy is: a rule file (docs/backtest-model.md "Rule strategies") or a module with hooks. The
// strategy decides; the engine owns orders, fills, fees and statistics.
import type { Market } from '../../domain/market.js';
import type { OutcomeSide } from '../../domain/market-series.js';
import type { MarketLine } from '../model/result.js';
import { UsageError } from '../../errors.js';

/** Fields a rule condition can read (docs/backtest-model.md "Fields"). */
export const RULE_FIELDS = ['price', 'price_up', 'price_down', 'side_price', 'elapsed_ms', 'remaining_ms', 'change', 'bid', 'ask'] as const;
/** Comparison operators of a rule condition. */
const RULE_OPS = ['<', '<=', '>', '>=', '=='] as const;

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

/** Fields a maker order's price is measured from (docs/backtest-model.md "Maker orders"). */
const MAKER_PRICE_FIELDS = ['bid', 'ask', 'side_price'] as const;

/** A rule's entry or exit as a maker order: at `price` field + `offset`, cancelled `ttl_ms` after the decision when given. */
export interface RuleMaker {
  price: (typeof MAKER_PRICE_FIELDS)[number];
  offset?: number;
  ttl_ms?: number;
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
  /** The entry is a maker buy at this price (else a taker buy). */
  entry_maker?: RuleMaker;
  /** The exit is a maker sell at this price (else a taker sell). */
  exit_maker?: RuleMaker;
}

/** A rule's maker order checked: the offset filled in, the time to live undefined when not given. */
export interface CheckedMaker {
  price: RuleMaker['price'];
  offset: number;
  ttl_ms: number | undefined;
}

/** A rule strategy checked, with every default filled in. */
export interface CheckedRule extends Required<Omit<RuleStrategy, 'exit' | 'entry_maker' | 'exit_maker'>> {
  exit: RuleCondition[] | undefined;
  entry_maker: CheckedMaker | undefined;
  exit_maker: CheckedMaker | undefined;
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
  /**
   * Post a maker (resting limit) order: `shares` of `side` at limit `price`, post-only, cancelled
   * `ttlMs` after the decision when given. Returns its id (unique in the run).
   */
  post(side: OutcomeSide, action: 'buy' | 'sell', shares: number, price: number, opts?: { ttlMs?: number }): number;
  /** Cancel a maker order of the current market, pending or live; false when it is no longer there. */
  cancel(id: number): boolean;
  /** The current market's maker orders not yet done, oldest first (a copy). */
  readonly orders: readonly MakerOrderView[];
  /** Shares of `side` held in the current market. */
  position(side: OutcomeSide): number;
  /** Cash, including what resting buys hold (`reserved`). */
  readonly cash: number;
  /** Cash held for resting maker buys (of every market). */
  readonly reserved: number;
  readonly pending: boolean;
  readonly market: Market;
  readonly params: Record<string, unknown>;
}

/** A maker order as `ctx.orders` shows it: `live` once it rests on the book (after the latency), `shares` what still rests. */
export interface MakerOrderView {
  id: number;
  side: OutcomeSide;
  action: 'buy' | 'sell';
  price: number;
  shares: number;
  live: boolean;
  decided_at: number;
  /** When its time to live ends; null without one. */
  expires_at: number | null;
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

const RULE_KEYS = ['name', 'side', 'size', 'entry', 'exit', 'max_entries', 'max_price', 'min_price', 'entry_maker', 'exit_maker'];
const MAKER_KEYS = ['price', 'offset', 'ttl_ms'];
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
    entry_maker: maker(raw.entry_maker, 'entry_maker'),
    exit_maker: maker(raw.exit_maker, 'exit_maker'),
  };
}

function maker(raw: unknown, where: string): CheckedMaker | undefined {
  if (raw === undefined) return undefined;
  const shape = `{ "price": ${MAKER_PRICE_FIELDS.map((f) => `"${f}"`).join(' | ')}, "offset": number, "ttl_ms": ms }`;
  if (!isObject(raw)) throw new UsageError(`strategy: ${where} must be an object ${shape}`);
  for (const key of Object.keys(raw)) {
    if (!MAKER_KEYS.includes(key)) throw new UsageError(`strategy: ${where}: unknown key '${key}'; use: ${MAKER_KEYS.join(', ')}`);
  }
  if (!(MAKER_PRICE_FIELDS as readonly unknown[]).includes(raw.price)) {
    throw new UsageError(`strategy: ${where}.price must be one of ${MAKER_PRICE_FIELDS.join(', ')}, got ${JSON.stringify(raw.price)}`);
  }
  const offset = raw.offset ?? 0;
  if (typeof offset !== 'number' || !(offset > -1 && offset < 1)) throw new UsageError(`strategy: ${where}.offset must be a number in (-1, 1), got ${JSON.stringify(offset)}`);
  const ttl = raw.ttl_ms;
  if (ttl !== undefined && !(Number.isSafeInteger(ttl) && (ttl as number) > 0)) {
    throw new UsageError(`strategy: ${where}.ttl_ms must be a whole number of milliseconds > 0, got ${JSON.stringify(ttl)}`);
  }
  return { price: raw.price as RuleMaker['price'], offset, ttl_ms: ttl as number | undefined };
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
