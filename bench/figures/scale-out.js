// Figure 11: scale-out. The same snapshot pages (limit=1000 at random offsets of complete
// markets) served by one `msnap serve` over the SQLite file, by one over PostgreSQL holding the
// same data (imported with `msnap serve import FILE.db --db postgres://…`), and by two instances
// on that PostgreSQL sharing their limits through Redis, each loaded in turn in short slices so
// the shared machine's noise falls on all alike. With MSNAP_BENCH_BEFORE_BIN (an older build's
// bin/msnap.js), the SQLite server of that build runs in the same slices: the async store's cost.
import postgres from 'postgres';
import path from 'node:path';
import { MSNAP_BIN, runMsnap, runNode, startServer } from '../child-process.js';
import { createKey, fullMarkets, seedFlags } from '../msnap-commands.js';
import { describeTarget, judge } from '../targets.js';
import { loadSnapshots } from './snapshot-load.js';

const PAGE = 1000;
const SAME_AS_BEFORE = { min: 0.95 };

/** Where the bench finds PostgreSQL and Redis: the machine's own services unless told otherwise. */
function services(env) {
  return {
    pg: env.MSNAP_BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redis: env.MSNAP_BENCH_REDIS_URL || 'redis://127.0.0.1:6379/0',
    before: env.MSNAP_BENCH_BEFORE_BIN || undefined,
  };
}

export async function scaleOutFigure(ctx) {
  const { pg, redis, before } = services(process.env);
  const admin = postgres(pg, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  const dbName = `msnap_bench_${process.pid}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
  } catch (err) {
    await admin.end({ timeout: 1 });
    throw new Error(`needs a PostgreSQL server (MSNAP_BENCH_PG_URL, default ${pg.replace(/:[^:@/]*@/, ':***@')}): ${err.message}`);
  }
  const url = new URL(pg);
  url.pathname = `/${dbName}`;
  const store = url.toString();
  const servers = [];
  let oldKey;
  try {
    const key = await createKey(ctx.db, { account: `bench-scale-${process.pid}`, plan: 'enterprise', rpm: 1_000_000, burst: 100_000 });
    const importStarted = performance.now();
    const imported = await runMsnap(['serve', 'import', ctx.db, '--db', store]);
    const importSeconds = (performance.now() - importStarted) / 1000;
    const markets = fullMarkets(ctx.db, { type: ctx.sizes.exportType, limit: 50 });
    if (markets.length === 0) throw new Error(`the seeded database holds no complete ${ctx.sizes.exportType} market`);
    const start = async (bin, args) => {
      const s = await startServer(bin, ['serve', ...args, '--host', '127.0.0.1', '--port', '0'], { env: { MSNAP_DB: '', MSNAP_DATABASE_URL: '', MSNAP_REDIS_URL: '' } });
      servers.push(s);
      return s;
    };
    const sqlite = await start(MSNAP_BIN, ['--db', ctx.db, '--no-live']);
    // An older build cannot open a database newer migrations wrote: it seeds its own, with the
    // same flags (the complete markets, whose pages are loaded, are the same ones).
    let old;
    if (before) {
      const beforeDb = path.join(ctx.tmpDir, 'before.db');
      const seeded = await runNode(before, ['serve', 'seed', '--db', beforeDb, ...seedFlags(ctx.sizes.mainDb)], { env: { MSNAP_DB: '' } });
      if (seeded.code !== 0) throw new Error(`the previous build could not seed: ${seeded.stderr.slice(-500)}`);
      await runNode(before, ['serve', 'keys', 'create', '--db', beforeDb, '--account', `bench-scale-${process.pid}`, '--plan', 'enterprise', '--rpm', '1000000', '--burst', '100000']).then((r) => {
        oldKey = r.stdout.trim().split('\n').pop();
      });
      old = await start(before, ['--db', beforeDb, '--no-live']);
    }
    const pg1 = await start(MSNAP_BIN, ['--db', store]);
    // Two instances sharing Redis, the first also loaded alone: 1 vs 2 instances on the same footing.
    const pg2 = [await start(MSNAP_BIN, ['--db', store, '--limiter', redis]), await start(MSNAP_BIN, ['--db', store, '--limiter', redis])];
    const sides = [
      ['sqlite', [sqlite.url]],
      ...(old ? [['sqlite-before', [old.url]]] : []),
      ['postgres', [pg1.url]],
      ['postgres-redis-1-instance', [pg2[0].url]],
      ['postgres-redis-2-instances', pg2.map((s) => s.url)],
    ];
    const results = await loadSnapshots(sides, { key, keys: { 'sqlite-before': oldKey }, markets, page: PAGE, sizes: ctx.sizes });
    const rate = (name) => results[name].reqPerSec;
    const rows = [
      { name: 'Scale-out: snapshot pages/s, SQLite, 1 instance', value: rate('sqlite'), unit: ' req/s' },
      { name: 'Scale-out: snapshot pages/s, PostgreSQL, 1 instance', value: rate('postgres'), unit: ' req/s' },
      { name: 'Scale-out: snapshot pages/s, PostgreSQL + Redis limiter, 1 instance', value: rate('postgres-redis-1-instance'), unit: ' req/s' },
      { name: 'Scale-out: snapshot pages/s, PostgreSQL + Redis limiter, 2 instances', value: rate('postgres-redis-2-instances'), unit: ' req/s' },
      { name: 'Scale-out: PostgreSQL / SQLite (1 instance each, in-process limiter)', value: rate('postgres') / rate('sqlite'), unit: 'x' },
      { name: 'Scale-out: 2 instances / 1 instance (PostgreSQL + Redis)', value: rate('postgres-redis-2-instances') / rate('postgres-redis-1-instance'), unit: 'x' },
      { name: 'Scale-out: import of the bench store into PostgreSQL (COPY)', value: importSeconds, unit: ' s' },
    ];
    if (old) {
      const ratio = rate('sqlite') / rate('sqlite-before');
      rows.splice(1, 0, { name: 'Scale-out: SQLite pages/s, async store / previous build', value: ratio, unit: 'x', target: describeTarget(SAME_AS_BEFORE, 'x'), verdict: judge({ value: ratio, ...SAME_AS_BEFORE }) });
    }
    return {
      title: 'Scale-out: PostgreSQL and several instances',
      method:
        `autocannon, ${ctx.sizes.connections} connections in all (split evenly over the instances of a side), ${ctx.sizes.loadSeconds} s per side in ` +
        `${ctx.sizes.loadSlices} slices taking turns, on \`/api/v1/markets/ID/snapshots?limit=${PAGE}&offset=RANDOM\` over ${markets.length} complete ` +
        `${ctx.sizes.exportType} markets, enterprise key (limits out of the way). PostgreSQL ${pg.replace(/:[^:@/]*@/, ':***@')} (a fresh database, dropped after), ` +
        `Redis ${redis}. All servers, PostgreSQL, Redis and autocannon share the same 2 cores, so a second instance cannot add a core's worth here.` +
        (old ? ` "previous build": ${before}.` : ' Set MSNAP_BENCH_BEFORE_BIN to an older build\'s bin/msnap.js to compare the SQLite path with it.'),
      rows,
      commands: [
        `msnap serve import FILE.db --db ${store.replace(/:[^:@/]*@/, ':***@')}`,
        'msnap serve --db FILE.db --port 0',
        `msnap serve --db postgres://… --port 0`,
        `msnap serve --db postgres://… --limiter ${redis} --port 0   # twice`,
      ],
      notes: [
        `Import: ${imported.stdout.trim()}`,
        ...Object.entries(results).map(([k, v]) => `${k}: ${Math.round(v.reqPerSec)} req/s over ${v.seconds.toFixed(1)} s; p50 ${v.p50} ms, p99 ${v.p99} ms; non-2xx ${v.non2xx}, errors ${v.errors}`),
      ],
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end({ timeout: 1 });
  }
}
