// Figure 13: the library's snapshot iterator against the CLI's NDJSON export of the same market,
// both as whole processes timed from spawn to exit: (a) through `msnap serve` (createClient vs
// `msnap snapshots ID --ndjson`), (b) from the SQLite file (openStore vs `--db`). A library user
// must not pay for the CLI's layers: the iterator reads at least as many rows/s as the export.
import path from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { ROOT, runMsnap, runNode } from '../child-process.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';

const TARGET = { min: 1 };

// Each run is short (one market), so the shared machine's noise swamps a single round: at least 3.
const MIN_ROUNDS = 5;
const ITERATE = path.join(ROOT, 'bench', 'library-iterate.js');

/** Time both readers over one complete market, alternately, best of each; returns figure 13. */
export async function libraryIteratorFigure(ctx) {
  const key = await createKey(ctx.db, { account: `bench-library-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const [market] = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 1 });
  if (!market) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
  const server = await startMsnapServe(ctx.db);
  const env = { ...ctx.cliEnv(server.url, key), MSNAP_API: 'v1' };
  const out = path.join(ctx.tmpDir, 'library-cli.ndjson');
  const runs = { libServe: [], cliServe: [], libStore: [], cliStore: [] };
  const rounds = Math.max(MIN_ROUNDS, ctx.sizes.exportRounds);
  let expected;
  try {
    for (let round = 0; round < rounds + 1; round++) {
      const lib = async (mode, source) => {
        const r = await runNode(ITERATE, [mode, source, market.market_id], { env, tmpDir: ctx.tmpDir });
        if (r.code !== 0) throw new Error(`library ${mode} read failed: ${r.stderr.slice(-2000)}`);
        const got = JSON.parse(r.stdout);
        if (got.rows !== expected.rows || Math.abs(got.priceSum - expected.priceSum) > 1e-6 * expected.rows) {
          throw new Error(`library ${mode} read ${got.rows} rows (sum ${got.priceSum}); the CLI exported ${expected.rows} (sum ${expected.priceSum})`);
        }
        return r.wallMs;
      };
      const cliServe = await runMsnap(['snapshots', market.market_id, '--ndjson', '-o', out, '--quiet'], { env, tmpDir: ctx.tmpDir });
      expected ??= ndjsonDigest(out);
      const cliStore = await runMsnap(['snapshots', market.market_id, '--ndjson', '-o', out, '--quiet', '--db', ctx.db], { env, tmpDir: ctx.tmpDir });
      const libServe = await lib('client', server.url);
      const libStore = await lib('store', ctx.db);
      // The first round only warms the page cache and checks the rows.
      if (round === 0) continue;
      runs.cliServe.push(cliServe.wallMs);
      runs.cliStore.push(cliStore.wallMs);
      runs.libServe.push(libServe);
      runs.libStore.push(libStore);
    }
  } finally {
    await server.stop();
    rmSync(out, { force: true });
  }
  const rate = (list) => expected.rows / (Math.min(...list) / 1000);
  const serveRatio = rate(runs.libServe) / rate(runs.cliServe);
  const storeRatio = rate(runs.libStore) / rate(runs.cliStore);
  const s = (list) => list.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ');
  return {
    title: 'Library iterator',
    method:
      `\`for await (const s of reader.snapshots(ID))\` in a plain node script (bench/library-iterate.js, counting rows and summing price_up) against ` +
      `\`msnap snapshots ID --ndjson -o FILE\`, over one complete ${market.market_type} market (${expected.rows.toLocaleString('en-US')} rows): ` +
      `(a) through \`msnap serve\` (v1, enterprise key), (b) from the SQLite file (openStore, \`--db\`). ` +
      `${rounds} timed rounds after one that warms the cache and checks that both read the same rows; best of each, processes timed from spawn to exit.`,
    rows: [
      { name: 'Library: iterator rows/s through serve', value: rate(runs.libServe), unit: ' rows/s' },
      { name: 'Library: CLI NDJSON export rows/s through serve', value: rate(runs.cliServe), unit: ' rows/s' },
      { name: 'Library: iterator / CLI export, through serve', value: serveRatio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: serveRatio, ...TARGET }) },
      { name: 'Library: iterator rows/s from the store', value: rate(runs.libStore), unit: ' rows/s' },
      { name: 'Library: CLI NDJSON export rows/s from the store (--db)', value: rate(runs.cliStore), unit: ' rows/s' },
      { name: 'Library: iterator / CLI export, from the store', value: storeRatio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: storeRatio, ...TARGET }) },
    ],
    commands: [
      `node bench/library-iterate.js client URL ${market.market_id}   # MSNAP_API_KEY, MSNAP_API=v1`,
      `msnap snapshots ${market.market_id} --ndjson -o out.ndjson --quiet`,
      `node bench/library-iterate.js store bench.db ${market.market_id}`,
      `msnap snapshots ${market.market_id} --ndjson -o out.ndjson --quiet --db bench.db`,
    ],
    notes: [
      `through serve: iterator ${s(runs.libServe)}; CLI ${s(runs.cliServe)}.`,
      `from the store: iterator ${s(runs.libStore)}; CLI ${s(runs.cliStore)}.`,
    ],
  };
}

/** Rows and the sum of price_up of an NDJSON export (what the iterator must have read too). */
function ndjsonDigest(file) {
  let rows = 0;
  let priceSum = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    rows++;
    priceSum += JSON.parse(line).price_up;
  }
  return { rows, priceSum };
}
