// Checks for command-line values (coins, types, counts, ids): each turns text into a domain
// value or throws a one-line UsageError that says what is accepted.
import { UsageError } from '../errors.js';
import { parseTime } from './time.js';
import {
  checkCoin,
  COINS,
  MARKET_STATUSES,
  MARKET_TYPES,
  parseMarketId,
  parseMarketStatus,
  parseMarketType,
  type Coin,
  type MarketStatus,
  type MarketType,
} from './market.js';

/** Use for a COIN argument or --coin. */
export function coinArg(value: string): Coin {
  const checked = checkCoin(value);
  if ('coin' in checked) return checked.coin;
  if (checked.refused === 'coming-soon') throw new UsageError(`${value.toUpperCase()} is coming soon; available: ${COINS.join(', ')}`);
  throw new UsageError(`unknown coin '${value}'; available: ${COINS.join(', ')}`);
}

/** Use for a TYPE argument or --type. */
export function marketTypeArg(value: string): MarketType {
  const type = parseMarketType(value);
  if (type) return type;
  throw new UsageError(`unknown market type '${value}'; use one of: ${MARKET_TYPES.join(', ')}`);
}

/** Use for --status. */
export function statusArg(value: string): MarketStatus {
  const status = parseMarketStatus(value);
  if (status) return status;
  throw new UsageError(`unknown status '${value}'; use one of: ${MARKET_STATUSES.join(', ')}`);
}

/** Use for counts (--limit, --offset, --last): digits only, at least `min`. */
export function countArg(value: string, flag: string, min: number): number {
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${flag} must be a whole number ${min > 0 ? `>= ${min}` : '>= 0'}, got '${value}'`);
  }
  const n = Number(value);
  if (n < min) throw new UsageError(`${flag} must be a whole number >= ${min}, got '${value}'`);
  return n;
}

/** Use for an integer flag within bounds (`serve seed --days`, `compact-books --batch`); a UsageError names it otherwise. */
export function boundedIntArg(name: string, value: string, min: number, max: number): number {
  const n = /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${name} must be an integer from ${min} to ${max}; got "${value.slice(0, 40)}"`);
  return n;
}

/** Use to check a count flag or an id of the admin commands (--rpm, a key id): a positive integer up to 1e9; UsageError naming `name` otherwise. */
export function positiveInt(name: string, value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 1_000_000_000)) throw new UsageError(`${name} must be a positive integer; got "${value.slice(0, 40)}"`);
  return n;
}

/** Use where a market id is expected; the message shows the expected shape. */
export function marketIdArg(value: string): string {
  // Case-insensitive, as coins and types are: BTC-UPDOWN-5M-… is the market btc-updown-5m-….
  const id = value.toLowerCase();
  if (parseMarketId(id)) return id;
  throw new UsageError(
    `'${value}' is not a market id (like btc-updown-5m-1763769600)`,
    'or give COIN TYPE, e.g. BTC 5m',
  );
}

/**
 * Use where a command takes `<market-id> ...` or `<coin> <type> ...`: a market id followed by a
 * market type, or a coin where a market id was meant, gets a message about the shape, not about
 * the one value that happens to be wrong.
 */
export function checkMarketOrCoinType(first: string, second: string | undefined, usage: string): void {
  const isId = parseMarketId(first.toLowerCase()) !== undefined;
  const coin = checkCoin(first);
  if (second === undefined && !isId && ('coin' in coin || coin.refused === 'coming-soon')) {
    throw new UsageError(`'${first}' needs a market type after it: ${usage}`);
  }
  if (second !== undefined && isId) throw new UsageError(`a market id takes no market type ('${second}'): ${usage}`);
}

/** Use for --from/--to: each parsed as a TIME, the range checked; only the flags given come back. */
export function timeRangeFlags(flags: { from?: string; to?: string }, now: number): { from?: number; to?: number } {
  const from = flags.from === undefined ? undefined : parseTime(flags.from, now, '--from');
  const to = flags.to === undefined ? undefined : parseTime(flags.to, now, '--to');
  checkRange(from, to);
  // Nothing starts after now: a range there is a mistake to name, not a market "not found".
  if (from !== undefined && from > now) {
    throw new UsageError(`--from ${new Date(from).toISOString()} is in the future (now is ${new Date(now).toISOString()}): nothing has been recorded there yet`);
  }
  return { ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) };
}

/** Use after parsing --from/--to: the range must not be empty. */
export function checkRange(from: number | undefined, to: number | undefined): void {
  if (from !== undefined && to !== undefined && from >= to) {
    throw new UsageError(
      `--from (${new Date(from).toISOString()}) must be before --to (${new Date(to).toISOString()})`,
    );
  }
}

/** Key names are plain identifiers: conf reads dots as paths, and names appear in shell commands. */
const KEY_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Use for NAME in `msnap keys add|use|remove`. */
export function keyNameArg(name: string): string {
  if (!KEY_NAME.test(name)) throw new UsageError(`invalid key name '${name}': use 1-64 letters, digits, '-' or '_'`);
  return name;
}

/** The job queue sweeps go on unless --queue-name says otherwise (backtest --queue and worker alike). */
export const DEFAULT_QUEUE_NAME = 'msnap-sweeps';

/** Use on --queue-name (absent: the default): a name BullMQ takes inside a Redis key (no ':'). */
export function queueNameArg(value: string | undefined): string {
  if (value === undefined) return DEFAULT_QUEUE_NAME;
  if (!/^[A-Za-z0-9_.-]{1,100}$/.test(value)) throw new UsageError(`--queue-name takes letters, digits, '_', '.' and '-' (at most 100), got '${value}'`);
  return value;
}
