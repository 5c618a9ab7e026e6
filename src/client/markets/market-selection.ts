// Which markets `snapshots COIN TYPE --last/--from/--to` takes, and what the plan's data window did
// to that choice: one rule for the CLI's exports, pull, chart and quality and for the library.
import { MARKET_DURATION_MS, type Coin, type Market, type MarketType } from '../../domain/market.js';
import { NotFoundError, WindowError } from '../../errors.js';
import type { MsnapApi, WindowEnd } from '../types.js';

/** A COIN TYPE choice: the latest `last` markets with snapshots (default 1, all within a range), or those overlapping [from, to). */
export interface SelectionRange {
  last?: number;
  /** Epoch ms. */
  from?: number;
  to?: number;
}

/** The markets an export takes, and what the plan's data window did to the choice. */
export interface Selection {
  /** Oldest first. */
  markets: Market[];
  /** Set when the listing stopped at the data window before the choice was complete. */
  windowEnd?: WindowEnd;
  /** The oldest market the listing reached (the window's oldest, when it ended there). */
  oldestListed?: Market;
  /** Markets of the range (or before the latest `last`) passed over because they hold no snapshots. */
  skipped: number;
}

/**
 * The markets to export, oldest first. Listing is newest first, so the latest N are the first N
 * that have snapshots; markets with none (just opened, or never captured) are skipped.
 */
export async function selectMarkets(
  client: MsnapApi,
  coin: Coin,
  marketType: MarketType,
  opts: SelectionRange,
): Promise<Selection> {
  const ranged = opts.from !== undefined || opts.to !== undefined;
  const want = opts.last ?? (ranged ? Infinity : 1);
  const duration = MARKET_DURATION_MS[marketType];
  // A market overlaps [from, to) when it starts before `to` and ends after `from`.
  const startMin = opts.from === undefined ? undefined : opts.from - duration + 1;
  const picked: Market[] = [];
  let windowEnd: WindowEnd | undefined;
  let oldestListed: Market | undefined;
  let skipped = 0;
  for await (const m of client.markets({
    coin,
    marketType,
    all: true,
    onWindowEnd: (end) => (windowEnd = end),
    ...(startMin !== undefined ? { startTime: startMin } : {}),
    ...(opts.to !== undefined ? { endTime: opts.to } : {}),
  })) {
    oldestListed = m;
    if (startMin !== undefined && m.start_time < startMin) continue;
    if (opts.to !== undefined && m.start_time >= opts.to) continue;
    if (m.snapshot_count <= 0) {
      skipped += 1;
      continue;
    }
    picked.push(m);
    if (picked.length >= want) break;
  }
  return {
    markets: picked.reverse(),
    skipped,
    ...(windowEnd ? { windowEnd } : {}),
    ...(oldestListed ? { oldestListed } : {}),
  };
}

/** Where a builder-style window begins for one coin and type: its oldest readable market. */
interface WindowStart {
  plan: string;
  cap: number;
  start: number;
}

/** Asks the service (only on the paths that need it): the plan's cap, then the market at that depth. */
async function windowStartOf(client: MsnapApi, coin: Coin, marketType: MarketType): Promise<WindowStart | undefined> {
  const limits = await client.limits();
  const cap = limits.data_window?.[marketType];
  if (cap === undefined || cap <= 0) return undefined;
  for await (const m of client.markets({ coin, marketType, offset: cap - 1, max: 1 })) {
    return { plan: limits.plan, cap, start: m.start_time };
  }
  return undefined; // fewer markets than the cap: the window cuts nothing
}

function windowWords(w: WindowStart, marketType: MarketType, withStart = true): string {
  const from = withStart ? `, from ${new Date(w.start).toISOString()}` : '';
  return `${w.plan} plan's data window (the most recent ${w.cap.toLocaleString('en-US')} ${marketType} markets${from})`;
}

/**
 * Use after selectMarkets: what the window did to a COIN TYPE choice, said once: a range wholly before it is a WindowError
 * (exit 4, not "not found"); a range reaching past it, or fewer markets than `--last` asked for
 * because of it, a note. Costs two requests, and only when the choice came up short.
 */
export async function explainSelection(
  sel: Selection,
  opts: SelectionRange,
  coin: Coin,
  marketType: MarketType,
  client: MsnapApi,
  note: (message: string) => void,
): Promise<void> {
  // No listed market covers `from`: the list (the window, or the data) began after it.
  const cutShort = opts.from !== undefined && (sel.oldestListed === undefined || sel.oldestListed.start_time > opts.from);
  const short = opts.last !== undefined && sel.markets.length > 0 && sel.markets.length < opts.last;
  const fewer = (within: string): string =>
    `only ${sel.markets.length} ${coin} ${marketType} market${sel.markets.length === 1 ? ' has' : 's have'} snapshots${within}; --last ${opts.last} asked for more`;
  const tooFew = short && sel.windowEnd !== undefined;
  if (short && !tooFew) note(fewer(''));
  // A range takes every market in it that has snapshots: those without are said, as --last's shortfall is.
  const ranged = opts.from !== undefined || opts.to !== undefined;
  if (ranged && sel.skipped > 0 && sel.markets.length > 0) {
    note(`${sel.skipped} ${coin} ${marketType} market${sel.skipped === 1 ? '' : 's'}${rangeText(opts)} ${sel.skipped === 1 ? 'has' : 'have'} no snapshots and ${sel.skipped === 1 ? 'is' : 'are'} left out`);
  }
  const empty = sel.markets.length === 0 && (opts.from !== undefined || opts.to !== undefined);
  if (!cutShort && !tooFew && !empty) return;
  const w = await windowStartOf(client, coin, marketType);
  if (!w) {
    if (tooFew) note(fewer(''));
    return;
  }
  if (empty && opts.to !== undefined && opts.to <= w.start) {
    throw new WindowError(
      `the ${coin} ${marketType} markets before ${new Date(opts.to).toISOString()} are outside your ${windowWords(w, marketType)}`,
      w.plan,
      'upgrade to Pro for the full history',
    );
  }
  if (cutShort && sel.markets.length > 0 && opts.from !== undefined && opts.from < w.start) {
    note(`snapshots before ${new Date(w.start).toISOString()} are outside your ${windowWords(w, marketType, false)}; the export starts there`);
  }
  if (tooFew) note(fewer(` within your ${windowWords(w, marketType)}`));
}

function rangeText(opts: SelectionRange): string {
  if (opts.from === undefined && opts.to === undefined) return '';
  const from = opts.from === undefined ? 'the start' : new Date(opts.from).toISOString();
  const to = opts.to === undefined ? 'now' : new Date(opts.to).toISOString();
  return ` between ${from} and ${to}`;
}

/** The COIN TYPE markets an export (or a pull) takes, oldest first, with the window explained; NotFoundError when none. */
export async function chooseMarkets(
  client: MsnapApi,
  target: { coin: Coin; marketType: MarketType },
  opts: SelectionRange,
  note: (message: string) => void,
): Promise<Market[]> {
  const selection = await selectMarkets(client, target.coin, target.marketType, opts);
  await explainSelection(selection, opts, target.coin, target.marketType, client, note);
  if (selection.markets.length === 0) {
    throw new NotFoundError(`no ${target.coin} ${target.marketType} market with snapshots${rangeText(opts)}`);
  }
  return selection.markets;
}
