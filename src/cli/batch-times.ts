// The input of `msnap at --times`: one TIME per line (the market given on the command line), or CSV
// with `market_id,time` columns. Lines are read as they come; each becomes a lookup or an error of
// its own, numbered as in the file, so one bad line never stops the batch.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { marketId, marketStartCovering, type Coin, type MarketType } from '../domain/market.js';
import { UsageError } from '../errors.js';
import { marketIdArg } from '../domain/arguments.js';
import { describeFsError } from './output/files/fs-error.js';
import { parseTime } from '../domain/time.js';

/** The market lines refer to when they hold only a TIME. */
export type TimesTarget = { marketId: string } | { coin: Coin; marketType: MarketType };

/** One input line: a lookup to make, or why it cannot be made. */
export type TimesLine =
  | { line: number; marketId: string; ts: number }
  | { line: number; marketId: string | null; ts: number | null; error: string };

/** Use to open `--times FILE|-` as lines; an unreadable file is a usage error. */
export async function openTimes(source: string, stdin: NodeJS.ReadableStream): Promise<AsyncIterable<string>> {
  if (source === '-') return linesOf(stdin);
  const stream = createReadStream(source);
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err: NodeJS.ErrnoException) =>
      reject(new UsageError(`--times ${source}: ${err.code === 'ENOENT' ? 'no such file' : describeFsError(err)}`)),
    );
  });
  return linesOf(stream);
}

// The iterator is taken at once: readline drops lines that arrive before anyone iterates, and the
// caller first connects to the service.
function linesOf(input: NodeJS.ReadableStream): AsyncIterable<string> {
  const iterator = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  return { [Symbol.asyncIterator]: () => iterator };
}

function csvColumns(line: string): { market: number; time: number } | undefined {
  const names = line.split(',').map((c) => c.trim().toLowerCase().replace(/^"|"$/g, ''));
  const market = names.indexOf('market_id');
  const time = names.indexOf('time');
  return market >= 0 && time >= 0 ? { market, time } : undefined;
}

function lookup(line: number, id: string, ts: number): TimesLine {
  return { line, marketId: id, ts };
}

function failed(line: number, id: string | null, ts: number | null, err: unknown): TimesLine {
  if (!(err instanceof UsageError)) throw err;
  return { line, marketId: id, ts, error: err.message };
}

/**
 * Use to turn the lines into lookups. Blank lines and `#` comments are skipped. A first line that
 * names `market_id` and `time` makes the input CSV; otherwise every line is a TIME in `target`.
 */
export async function* timesLines(lines: AsyncIterable<string>, target: TimesTarget | undefined, now: number): AsyncGenerator<TimesLine> {
  let n = 0;
  let columns: { market: number; time: number } | undefined;
  let first = true;
  for await (const raw of lines) {
    n += 1;
    const text = raw.trim();
    if (text === '' || text.startsWith('#')) continue;
    if (first) {
      first = false;
      columns = csvColumns(text);
      if (columns && target) throw new UsageError('--times: the CSV names its markets (market_id column): drop the market arguments');
      if (!columns && !target) {
        throw new UsageError('--times: lines hold only a TIME, so name the market: msnap at <market-id>|<coin> <type> --times FILE (or give market_id,time CSV)');
      }
      if (columns) continue;
    }
    if (columns) {
      const cells = text.split(',').map((c) => c.trim());
      const id = cells[columns.market] ?? '';
      try {
        const checked = marketIdArg(id);
        yield lookup(n, checked, parseTime(cells[columns.time] ?? '', now, 'TIME'));
      } catch (err) {
        yield failed(n, id || null, null, err);
      }
      continue;
    }
    try {
      const ts = parseTime(text, now, 'TIME');
      const t = target!;
      yield lookup(n, 'marketId' in t ? t.marketId : marketId(t.coin, t.marketType, marketStartCovering(t.marketType, ts)), ts);
    } catch (err) {
      yield failed(n, 'marketId' in target! ? target.marketId : null, null, err);
    }
  }
}
