// Figure 10: the offline mirror. (a) One complete market exported to CSV from a local store with
// --db (which writes the text straight from the stored values) and through `msnap serve` over the
// same file, alternately, best of each; the two files must be byte-identical, and the local
// export's peak RSS stays within the export memory limit. (b) `msnap pull` of those markets, then
// a re-pull of the complete store through a recording proxy: requests made (snapshot requests
// must be 0) and wall time.
import path from 'node:path';
import { readFileSync, rmSync } from 'node:fs';
import { runMsnap } from '../child-process.js';
import { createKey, fullMarkets, startMsnapServe } from '../msnap-commands.js';
import { startRequestLogProxy } from '../request-log-proxy.js';
import { describeTarget, judge } from '../targets.js';
import { MEMORY_TARGET_MB } from './export-throughput.js';

// The targets (re-based in issue 25 from an unreachable 5x: both exports share the same
// process start and output file work) are for a 24hr market (691,200 rows): the local export at
// least 2x the export through serve and at least 2M rows/s. Quick mode exports the same market
// and holds it to the same ratio; the rows/s, an absolute rate the full run holds on an otherwise
// idle machine, is shown for information only.
const TARGET = { min: 2 };
// Local runs of a third of a second on a shared machine: at least 5 rounds, the best of each counted.
const MIN_ROUNDS = 5;
const LOCAL_RATE_TARGET = { min: 2_000_000 };

/** Run both halves against ctx.db; returns figure 10. */
export async function offlineMirrorFigure(ctx) {
  const key = await createKey(ctx.db, { account: `bench-mirror-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
  const [market] = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 1 });
  if (!market) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
  const server = await startMsnapServe(ctx.db);
  const env = ctx.cliEnv(server.url, key);
  const viaServe = path.join(ctx.tmpDir, 'mirror-serve.csv');
  const local = path.join(ctx.tmpDir, 'mirror-local.csv');
  const rounds = Math.max(MIN_ROUNDS, ctx.sizes.exportRounds);
  const serveRuns = [];
  const localRuns = [];
  let localPeakKb = null;
  let pulls;
  try {
    for (let round = 0; round < rounds; round++) {
      // Every run writes a new file: replacing the last round's would time the file system freeing
      // its blocks (20-30 ms for 50 MB here), which only later rounds would pay.
      rmSync(viaServe, { force: true });
      rmSync(local, { force: true });
      const s = await runMsnap(['snapshots', market.market_id, '--csv', '-o', viaServe, '--quiet'], { env, tmpDir: ctx.tmpDir });
      if (s.code !== 0) throw new Error(`export through serve failed: ${s.stderr.slice(-2000)}`);
      serveRuns.push(s.wallMs);
      const l = await runMsnap(['snapshots', market.market_id, '--csv', '-o', local, '--quiet', '--db', ctx.db], { env: ctx.cliEnv('http://127.0.0.1:1', ''), tmpDir: ctx.tmpDir, measureRss: true });
      if (l.code !== 0) throw new Error(`local export failed: ${l.stderr.slice(-2000)}`);
      localRuns.push(l.wallMs);
      if (l.peakRssKb !== null) localPeakKb = Math.max(localPeakKb ?? 0, l.peakRssKb);
    }
    pulls = await pullTwice(ctx, server.url, key, market);
  } finally {
    await server.stop();
  }
  const a = readFileSync(viaServe);
  const same = a.equals(readFileSync(local));
  const rows = a.toString('latin1').split('\n').length - 2;
  rmSync(viaServe, { force: true });
  rmSync(local, { force: true });
  const rate = (ms) => rows / (ms / 1000);
  const serveRate = rate(Math.min(...serveRuns));
  const localRate = rate(Math.min(...localRuns));
  const ratio = localRate / serveRate;
  const peakMb = localPeakKb === null ? null : localPeakKb / 1024;
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  return {
    title: 'Offline mirror',
    method:
      `(a) \`msnap snapshots ${market.market_id} --csv -o FILE --db DB\` (${rows.toLocaleString('en-US')} rows, read from the SQLite file) against the same export ` +
      `through \`msnap serve\` over the same file, alternately, ${rounds} round(s), best of each, processes timed from spawn to exit (each to a new file), enterprise key; peak RSS of the local runs from GNU time. ` +
      `(b) \`msnap pull ${pulls.args.join(' ')}\` into an empty store, then again over the complete store, through a loopback proxy that counts requests.`,
    rows: [
      ctx.quick
        ? { name: 'Mirror: local export rows/s (--db)', value: localRate, unit: ' rows/s' }
        : { name: 'Mirror: local export rows/s (--db)', value: localRate, unit: ' rows/s', target: describeTarget(LOCAL_RATE_TARGET, ' rows/s'), verdict: judge({ value: localRate, ...LOCAL_RATE_TARGET }) },
      { name: 'Mirror: export rows/s through serve', value: serveRate, unit: ' rows/s' },
      { name: 'Mirror: local / through serve', value: ratio, unit: 'x', target: describeTarget(TARGET, 'x'), verdict: judge({ value: ratio, ...TARGET }) },
      { name: 'Mirror: local output byte-identical', value: same ? 'yes' : 'NO', target: 'yes', verdict: { pass: same, miss: same ? 0 : Infinity } },
      ...(peakMb === null
        ? []
        : [{ name: 'Mirror: local export peak RSS', value: peakMb, unit: ' MB', target: describeTarget(MEMORY_TARGET_MB, ' MB'), verdict: judge({ value: peakMb, ...MEMORY_TARGET_MB }) }]),
      { name: 'Mirror: first pull, requests / wall', value: `${pulls.first.requests} / ${s(pulls.first.wallMs)}` },
      { name: 'Mirror: re-pull of the complete store, snapshot requests', value: pulls.again.snapshotRequests, target: '= 0', verdict: judge({ value: pulls.again.snapshotRequests, exactly: 0 }) },
      { name: 'Mirror: re-pull, requests / wall', value: `${pulls.again.requests} / ${s(pulls.again.wallMs)}` },
    ],
    commands: [
      `msnap snapshots ${market.market_id} --csv -o local.csv --db bench.db --quiet`,
      `msnap snapshots ${market.market_id} --csv -o serve.csv --quiet`,
      `msnap pull ${pulls.args.join(' ')} --db mirror.db   # twice`,
    ],
    notes: [
      `local runs: ${localRuns.map(s).join(', ')}; through serve: ${serveRuns.map(s).join(', ')}.`,
      ...(ctx.quick
        ? [`quick mode: the local rows/s is shown, not judged; the full run holds it to ${describeTarget(LOCAL_RATE_TARGET, ' rows/s')}.`]
        : []),
      'Before issue 25 (BENCHMARKS.md, full run on 21c8964): local 1,757,962 rows/s, through serve 812,107 rows/s, 2.165x; peak RSS 108.7 MB.',
      `first pull: ${pulls.first.snapshotRequests} snapshot requests of ${pulls.first.requests}; re-pull: only the market listing and limits.`,
    ],
  };
}

// The pulled markets: the newest few of the exported type (the complete market among them).
async function pullTwice(ctx, url, key, market) {
  const proxy = await startRequestLogProxy(url);
  const mirror = path.join(ctx.tmpDir, 'mirror.db');
  const args = [market.coin, market.market_type, '--last', '3'];
  try {
    const run = async () => {
      const at = proxy.log.length;
      const r = await runMsnap(['pull', ...args, '--db', mirror, '--quiet'], { env: ctx.cliEnv(proxy.url, key), tmpDir: ctx.tmpDir });
      if (r.code !== 0) throw new Error(`pull failed: ${r.stderr.slice(-2000)}`);
      const log = proxy.log.slice(at);
      return { wallMs: r.wallMs, requests: log.length, snapshotRequests: log.filter((e) => /\/snapshots(\?|$)/.test(e.path)).length };
    };
    return { args, first: await run(), again: await run() };
  } finally {
    await proxy.close();
    rmSync(mirror, { force: true });
    rmSync(`${mirror}-wal`, { force: true });
    rmSync(`${mirror}-shm`, { force: true });
  }
}
