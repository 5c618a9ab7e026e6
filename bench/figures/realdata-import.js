// Figure 19: real-data import. A generated PMXT v2 hour file at real size (quick: a tenth) with
// hundreds of assets, of which a few Up or Down markets are selected, imported by the built
// `msnap import polymarket`; beside it, in the same run, a plain scan of the file's columns with
// the same Parquet reader (hyparquet, no reconstruction) and `serve import` of the same
// snapshots as NDJSON. Targets are ratios: these machines' absolute speed varies ~3x by day.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { asyncBufferFromFile, parquetScan } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { ROOT, runMsnap } from '../child-process.js';
import { countRows } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const SCAN_RATIO_TARGET = { min: 0.5 };
const WRITE_RATIO_TARGET = { min: 0.5 };
const RSS_TARGET_MB = { max: 400 };

/** `rows`: event rows to generate (the full run >= 5M). */
export async function realdataImportFigure(ctx, { rows }) {
  const support = path.join(ROOT, 'dist/realdata/test-support');
  const { doneWhenHour, generatePmxtEvents, hexIdFor, tokenIdFor, DONE_WHEN_HOUR } = await import(`${support}/pmxt-scenarios.js`);
  const { writePmxtFileInGroups, pmxtFileName, sortPmxtRows } = await import(`${support}/pmxt-fixture.js`);
  const { gammaEventsBody } = await import(`${support}/gamma-fixture.js`);
  const { generateKlines, klinesCsv, klineDayName } = await import(`${support}/kline-fixture.js`);

  // Three Up or Down markets of the done-when hour, and 200 other markets' 400 assets around them.
  const { markets } = doneWhenHour(7);
  const unrelated = Array.from({ length: 200 }, (_, i) => ({ conditionId: hexIdFor(`bench/${i}`), assetIds: [tokenIdFor(`bench/${i}/yes`), tokenIdFor(`bench/${i}/no`)] }));
  const from = DONE_WHEN_HOUR;
  const to = DONE_WHEN_HOUR + 3_600_000 - 2_000;
  const tokens = markets.length * 2 + unrelated.length * 2;
  const eventsPerSecond = rows / tokens / ((to - from) / 1000);
  // Market by market in the file's order (by condition id), in row groups of 100,000: the file is
  // written as it is generated, so a real-size hour never sits in memory as rows.
  const inOrder = [...markets.map((m) => ({ m })), ...unrelated.map((u) => ({ u }))].sort((a, b) => ((a.m ?? a.u).conditionId < (b.m ?? b.u).conditionId ? -1 : 1));
  function* groups() {
    let pending = [];
    for (const [i, { m, u }] of inOrder.entries()) {
      const produced = generatePmxtEvents({ seed: 19 + i, markets: m ? [m] : [], unrelated: u ? [u] : [], from, to, eventsPerSecond });
      pending.push(...sortPmxtRows(produced.filter((r) => r.timestamp_received < DONE_WHEN_HOUR + 3_600_000)));
      while (pending.length >= 100_000) yield pending.splice(0, 100_000);
    }
    yield pending;
  }
  // The generated hour is kept between runs (minutes to make at full size), keyed by its size and
  // the generator's code, so only a changed generator makes it again.
  const genStarted = performance.now();
  const key = createHash('sha256').update(String(rows));
  for (const f of ['pmxt-scenarios.js', 'pmxt-fixture.js', 'decimal-text.js']) key.update(readFileSync(path.join(support, f)));
  const cacheDir = path.join(tmpdir(), 'msnap-bench-cache', key.digest('hex').slice(0, 16));
  mkdirSync(cacheDir, { recursive: true });
  const cached = path.join(cacheDir, pmxtFileName(DONE_WHEN_HOUR));
  const cachedRows = path.join(cacheDir, 'rows');
  if (!existsSync(cachedRows)) {
    const n = await writePmxtFileInGroups(`${cached}.part`, groups());
    renameSync(`${cached}.part`, cached);
    writeFileSync(cachedRows, String(n));
  }
  const fileRows = Number(readFileSync(cachedRows, 'utf8'));
  const file = path.join(ctx.tmpDir, pmxtFileName(DONE_WHEN_HOUR));
  copyFileSync(cached, file);
  const genMs = performance.now() - genStarted;

  const gamma = path.join(ctx.tmpDir, 'events.json');
  writeFileSync(gamma, gammaEventsBody(markets.map((m) => ({ slug: m.marketId, conditionId: m.conditionId, tokenUp: m.tokenUp, tokenDown: m.tokenDown, start: m.start, end: m.end }))));
  const prices = ['BTCUSDT', 'ETHUSDT'].map((symbol, i) => {
    const p = path.join(ctx.tmpDir, `${klineDayName(symbol, '1s', from)}.csv`);
    writeFileSync(p, klinesCsv(generateKlines({ interval: '1s', from: from - 3_600_000, to: from + 2 * 3_600_000, seed: i + 1 })));
    return p;
  });

  // The plain scan: every row of the columns the import reads, decoded, nothing rebuilt.
  const scanStarted = performance.now();
  const buffer = await asyncBufferFromFile(file);
  // The import's own column list and time parsers (the reader's default builds a Date per row).
  const { NUMERIC_TIMES } = await import(path.join(ROOT, 'dist/realdata/pmxt/pmxt-reader.js'));
  const { PMXT_READ_COLUMNS } = await import(path.join(ROOT, 'dist/realdata/pmxt/pmxt-layout.js'));
  const scan = await parquetScan({ file: buffer, columns: [...PMXT_READ_COLUMNS], compressors, parsers: NUMERIC_TIMES });
  let scanned = 0;
  for (const range of scan.ranges) for (const column of PMXT_READ_COLUMNS) scanned += (await scan.readColumn({ column, ...range })).length / PMXT_READ_COLUMNS.length;
  const scanMs = performance.now() - scanStarted;

  const db = path.join(ctx.tmpDir, 'realdata.db');
  const args = ['import', 'polymarket', file, '--db', db, '--gamma-file', gamma, '--prices', prices[0], '--prices', prices[1]];
  const run = await runMsnap(args, { tmpDir: ctx.tmpDir, measureRss: true });
  const counts = countRows(db);
  const again = await runMsnap(args, { tmpDir: ctx.tmpDir });
  const addedAgain = countRows(db).snapshots - counts.snapshots;

  // The same snapshots as NDJSON through `serve import`, into a fresh store.
  const ndjson = path.join(ctx.tmpDir, 'realdata.ndjson');
  const parts = [];
  for (const m of markets) parts.push((await runMsnap(['snapshots', m.marketId, '--db', db, '--orderbook', '--ndjson', '--quiet'], { tmpDir: ctx.tmpDir })).stdout);
  writeFileSync(ndjson, parts.join(''));
  const plainDb = path.join(ctx.tmpDir, 'realdata-ndjson.db');
  const loaded = await runMsnap(['serve', 'import', ndjson, '--db', plainDb], { tmpDir: ctx.tmpDir });

  const importRowsPerSec = fileRows / (run.wallMs / 1000);
  const scanRowsPerSec = scanned / (scanMs / 1000);
  // Both write rates as msnap reports them: the import's write path (deciding ticks, writing rows
  // and books, committing) and serve import's loop, neither with process start or file reading
  // of the other's kind.
  const importSnapsPerSec = ownRate(/snapshots written at ([\d,]+)\/s/, run.stdout);
  const ndjsonSnapsPerSec = ownRate(/\(([\d,]+) rows\/s\)/, loaded.stdout);
  const scanRatio = importRowsPerSec / scanRowsPerSec;
  const writeRatio = importSnapsPerSec / ndjsonSnapsPerSec;
  const rssMb = run.peakRssKb === null ? null : run.peakRssKb / 1024;
  return {
    title: 'Real data: PMXT archive import',
    method:
      `A generated PMXT v2 hour file (${fileRows.toLocaleString('en-US')} event rows, ${tokens} assets, ZSTD, row groups of 100,000) of which ` +
      `${markets.length} Up or Down markets are selected (saved Gamma answers, 1s kline CSVs), imported by \`msnap import polymarket\` ` +
      '(process wall time, start-up included). Scan ratio: file rows/s of the import over rows/s of a plain in-process hyparquet scan of the ten columns ' +
      'the import reads, every row decoded, nothing rebuilt. Write ratio: the import\'s own snapshots written per second of its write path (ticks decided, ' +
      'rows and books written, commits) over `msnap serve import`\'s own rows/s loading the same snapshots (books included) as NDJSON into a fresh store. Peak RSS of the import process. The same file imported again must add nothing.',
    rows: [
      { name: 'Import: file rows/s (process wall)', value: importRowsPerSec, unit: ' rows/s' },
      { name: 'Plain scan of the same columns: rows/s', value: scanRowsPerSec, unit: ' rows/s' },
      { name: 'Import / plain scan', value: scanRatio, unit: 'x', target: describeTarget(SCAN_RATIO_TARGET, 'x'), verdict: judge({ value: scanRatio, ...SCAN_RATIO_TARGET }) },
      { name: 'Import: snapshots/s', value: importSnapsPerSec, unit: ' snapshots/s' },
      { name: 'serve import of the same snapshots (NDJSON): snapshots/s', value: ndjsonSnapsPerSec, unit: ' snapshots/s' },
      { name: 'Import / NDJSON import, snapshots written', value: writeRatio, unit: 'x', target: describeTarget(WRITE_RATIO_TARGET, 'x'), verdict: judge({ value: writeRatio, ...WRITE_RATIO_TARGET }) },
      { name: 'Import: peak RSS', value: rssMb, unit: ' MB', target: describeTarget(RSS_TARGET_MB, ' MB'), verdict: judge({ value: rssMb, ...RSS_TARGET_MB }) },
      { name: 'The same file again: snapshots added', value: addedAgain, unit: '', target: describeTarget({ exactly: 0 }), verdict: judge({ value: addedAgain, exactly: 0 }) },
    ],
    commands: ['msnap import polymarket polymarket_orderbook_2026-04-13T12.parquet --db realdata.db --gamma-file events.json --prices BTCUSDT-1s-….csv --prices ETHUSDT-1s-….csv', 'msnap serve import realdata.ndjson --db fresh.db'],
    notes: [
      `The hour file was generated and written, or taken from the cache in ${path.dirname(cacheDir)}, in ${(genMs / 1000).toFixed(1)} s (not timed in the figure). The import wrote ${counts.markets} markets, ${counts.snapshots.toLocaleString('en-US')} snapshots and ${counts.orderbooks.toLocaleString('en-US')} books.`,
      `msnap's own line: ${run.stdout.trim()}`,
      `Again: ${again.stdout.trim()}`,
    ],
  };
}

function ownRate(re, text) {
  const m = re.exec(text);
  return m ? Number(m[1].replace(/,/g, '')) : Number.NaN;
}
