// `msnap import polymarket`: real Polymarket markets from the public archives into a store
// (docs/real-data.md): PMXT hourly orderbook files, Gamma for the markets, Binance klines for the
// asset price.
import { Command, Option } from 'commander';
import { parseMarketType } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import type { PolymarketImportSummary } from '../../realdata/import/polymarket-import.js';
import type { RealMarket } from '../../realdata/import/real-market.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath, storeName } from '../../store/db-path.js';
import type { RecordWrites } from '../../store/record-writes.js';
import type { CliContext } from '../context.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';
import { counted } from '../output/terminal/count-text.js';
import { usingRecordWrites } from '../../service/store-use.js';
import { DEFAULT_GAMMA_URL } from '../../service/record-settings.js';

/** Binance's public REST API. */
const DEFAULT_BINANCE_URL = 'https://api.binance.com';

/** Checked flags of `import polymarket`. */
export interface PolymarketImportFlags {
  files: string[];
  db: string;
  gammaFiles: string[];
  gammaUrl: string;
  coin?: string;
  type?: string;
  prices: string[];
  binanceUrl: string;
}

/** Imports the files and writes the closing summary to stdout. */
async function runPolymarketImport(opts: PolymarketImportFlags, deps: CliDeps): Promise<PolymarketImportSummary> {
  const { expandArchiveArgs } = await import('../../realdata/import/archive-inputs.js');
  const sources = await import('../../realdata/import/import-sources.js');
  const { hourFromFileName, HOUR_MS } = await import('../../realdata/pmxt/pmxt-layout.js');
  const { PmxtFile } = await import('../../realdata/pmxt/pmxt-reader.js');
  const { importPolymarket } = await import('../../realdata/import/polymarket-import.js');

  const coins = sources.parseCoins(opts.coin);
  const types = sources.parseTypes(opts.type, parseMarketType);
  const files = expandArchiveArgs(opts.files);
  const { RAW_FILE } = await import('../../realdata/live/raw-replay.js');
  // The recorder's raw files (--raw) are read back through the recorder's core, not as archive hours.
  const raw = files.every((f) => RAW_FILE.test(f.name));
  const hours: number[] = [];
  for (const f of files) {
    const named = hourFromFileName(f.name);
    if (raw && named === undefined) throw new UsageError(`${f.name}: a raw file's name says its hour (msnap-raw-YYYY-MM-DDTHH.jsonl.gz)`);
    hours.push(named ?? (await (await PmxtFile.open(f.name, await f.open())).firstReceiptHour()));
  }
  const choice = { coins, types, from: Math.min(...hours), to: Math.max(...hours) + HOUR_MS };

  let markets;
  if (opts.gammaFiles.length > 0) {
    const got = await sources.marketsFromGammaFiles(opts.gammaFiles, choice);
    markets = got.markets;
  } else {
    deps.info(`asking ${opts.gammaUrl} for the ${coins.join(', ')} ${types.join(', ')} markets of ${new Date(choice.from).toISOString().slice(0, 13)}h to ${new Date(choice.to).toISOString().slice(0, 13)}h`);
    const got = await sources.marketsFromGammaApi(opts.gammaUrl, choice);
    markets = got.markets;
  }
  if (markets.length === 0) {
    throw new UsageError(`no ${coins.join('/')} ${types.join('/')} market in ${opts.gammaFiles.length ? opts.gammaFiles.join(', ') : opts.gammaUrl} overlaps the files' hours`);
  }
  if (raw) return rebuildFromRaw(opts, files.map((f) => f.name), markets.filter((m) => m.endTime > choice.from && m.startTime < choice.to), deps);
  const wantedCoins = [...new Set(markets.map((m) => m.coin))];
  const prices =
    opts.prices.length > 0
      ? await sources.pricesFromFiles(opts.prices, wantedCoins)
      : await sources.pricesFromApi(opts.binanceUrl, wantedCoins, Math.min(...markets.map((m) => m.startTime), choice.from), Math.max(...markets.map((m) => m.endTime), choice.to));

  const progress = await deps.progress('import', { resultAtEnd: true });
  const stop = new AbortController();
  const unregister = deps.onStop(() => stop.abort());
  const load = (writes: RecordWrites) =>
    importPolymarket(writes, {
      files,
      markets,
      prices: (coin) => prices.get(coin),
      priceSource: 'binance',
      signal: stop.signal,
      onProgress: (p) =>
        progress.update({
          unit: 'file',
          pages: p.fileIndex + 1,
          rows: p.rowsRead,
          extra: `${counted(p.markets, 'market')} · ${counted(p.snapshots, 'snapshot')}`,
        }),
    });
  let s: PolymarketImportSummary;
  try {
    // Into SQLite or PostgreSQL alike: each hour file is one transaction of the store itself.
    s = await usingRecordWrites(opts.db, deps, load);
  } finally {
    progress.stop();
    unregister();
  }
  if (s.coinsWithoutPrices.length > 0) deps.warn(`no asset price for ${s.coinsWithoutPrices.join(', ')}: their markets have no snapshots; give --prices`);
  const fmt = (n: number) => n.toLocaleString('en-US');
  const secs = s.ms / 1000;
  deps.writeOut(
    `imported ${counted(s.files, 'file')} into ${storeName(opts.db)}: ${counted(s.markets, 'market')} (${fmt(s.marketsAdded)} new, ${fmt(s.unresolved)} unresolved), ` +
      `${counted(s.snapshots, 'snapshot')} (${fmt(s.books)} with books, ${fmt(s.snapshotsSkipped)} already present), ${counted(s.gaps, 'gap')}; ` +
      `${fmt(s.rowsRead)} of ${fmt(s.rowsScanned)} rows read in ${secs.toFixed(1)} s (${fmt(Math.round(s.rowsScanned / Math.max(secs, 0.001)))} rows/s` +
      (s.snapshots > 0 ? `, snapshots written at ${fmt(Math.round(s.snapshots / Math.max(s.writeMs / 1000, 0.001)))}/s` : '') +
      ')' +
      (s.hoursSkipped > 0 ? `; ${fmt(s.hoursSkipped)} market-hours already imported` : '') +
      '\n',
  );
  return s;
}

/** Rebuilds the markets from `msnap record --raw` files (into SQLite or PostgreSQL) and writes the closing line. */
async function rebuildFromRaw(opts: PolymarketImportFlags, files: string[], markets: RealMarket[], deps: CliDeps): Promise<PolymarketImportSummary> {
  const { replayRaw } = await import('../../realdata/live/raw-replay.js');
  const started = performance.now();
  const r = await usingRecordWrites(opts.db, deps, (writes) => replayRaw(writes, files, markets, { log: (l) => deps.warn(l) }));
  const unresolved = markets.filter((m) => m.winner === null).length;
  deps.writeOut(
    `imported ${counted(files.length, 'raw file')} into ${storeName(opts.db)}: ${counted(markets.length, 'market')} (${r.marketsAdded.toLocaleString('en-US')} new, ${unresolved.toLocaleString('en-US')} unresolved), ` +
      `${counted(r.snapshots, 'snapshot')}, ${counted(r.gaps, 'gap')}; ${r.lines.toLocaleString('en-US')} lines read (${r.badFrames.toLocaleString('en-US')} bad frames)\n`,
  );
  return {
    files: files.length, hoursSkipped: 0, rowsScanned: r.lines, rowsRead: r.lines, rowsSkipped: r.badLines, markets: markets.length, marketsAdded: r.marketsAdded,
    snapshots: r.snapshots, snapshotsSkipped: 0, books: r.snapshots, gaps: r.gaps, unresolved, coinsWithoutPrices: [], writeMs: 0, ms: performance.now() - started,
  };
}

/** Use to check the arguments and flags of `import polymarket`. */
export function parsePolymarketFlags(
  files: string[],
  raw: { db?: string; gammaFile?: string[]; gammaUrl?: string; coin?: string; type?: string; prices?: string[]; binanceUrl?: string },
  env: NodeJS.ProcessEnv,
): PolymarketImportFlags {
  if (files.length === 0) throw new UsageError('name at least one PMXT archive file (polymarket_orderbook_YYYY-MM-DDTHH.parquet)');
  return {
    files,
    db: resolveDbPath(raw.db, env),
    gammaFiles: raw.gammaFile ?? [],
    gammaUrl: raw.gammaUrl ?? env.MSNAP_GAMMA_URL ?? DEFAULT_GAMMA_URL,
    coin: raw.coin,
    type: raw.type,
    prices: raw.prices ?? [],
    binanceUrl: raw.binanceUrl ?? env.MSNAP_BINANCE_URL ?? DEFAULT_BINANCE_URL,
  };
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** The `import` command and its `polymarket` subcommand. */
export function importCommand(ctx: CliContext): Command {
  const polymarket = new Command('polymarket')
    .description('Import real Polymarket crypto Up or Down markets from PMXT archive hours, Gamma and Binance klines')
    .argument('<files...>', 'PMXT v2 hour files (paths, globs (quote them), folders or URLs), or the raw files of `msnap record --raw`')
    .option('--db <file|url>', `store to write: an SQLite file or postgres:// URL (default: ${DEFAULT_DB_PATH_HELP})`)
    .option('--gamma-file <file>', 'saved Gamma /events answers (JSON) instead of asking Gamma (repeatable)', collect)
    .addOption(new Option('--gamma-url <url>', `Gamma API base (env MSNAP_GAMMA_URL; default ${DEFAULT_GAMMA_URL})`))
    .option('--coin <coins>', 'coins to import, a comma list (default: BTC,ETH,SOL)')
    .option('--type <types>', 'market types to import, a comma list (default: all)')
    .option('--prices <file|url>', 'Binance klines: daily zip or CSV of 1s/1m klines, or a saved REST answer (repeatable)', collect)
    .addOption(new Option('--binance-url <url>', `Binance API base for prices when --prices is not given (env MSNAP_BINANCE_URL; default ${DEFAULT_BINANCE_URL})`))
    .addHelpText(
      'after',
      `
Each hour file is one transaction, in an SQLite file or in PostgreSQL (--db postgres://…,
written in place, where serve --store instances see each hour as it commits; raw files too):
an import stopped midway and run again equals one that was
never stopped, and an hour imported twice adds nothing. A market spanning hours is stitched when
its hours are imported (in any number of runs) in time order. Snapshots follow docs/real-data.md:
the 125 ms grid, no look-ahead, Polymarket's displayed price, top-8 books; a winner only from
Gamma. Bad input (a v1 or other Parquet file, a cut download, Gamma JSON of another shape, klines
of another symbol) stops with one line naming the file (exit 2).

Examples:
  $ msnap import polymarket polymarket_orderbook_2026-04-13T05.parquet --db real.db \\
      --gamma-file events.json --prices BTCUSDT-1s-2026-04-13.zip --coin btc --type 5m
  $ msnap import polymarket 'archive/polymarket_orderbook_2026-04-13T*.parquet' --db real.db
  $ msnap import polymarket archive/ --db postgres://msnap@db/msnap --coin eth,sol`,
    )
    .action(async (files: string[], raw: Parameters<typeof parsePolymarketFlags>[1], cmd: Command) => {
      const opts = parsePolymarketFlags(files, raw, ctx.env);
      await runAdminWithDeps(ctx, cmd, async (deps) => void (await runPolymarketImport(opts, deps)));
    });
  return new Command('import')
    .description('Import real market data from public sources into a store')
    .addCommand(polymarket)
    .addHelpText(
      'after',
      `
Examples:
  $ msnap import polymarket 'archive/*.parquet' --db real.db --gamma-file events.json --prices BTCUSDT-1s-2026-04-13.zip`,
    );
}
