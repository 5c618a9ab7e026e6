// `msnap pull`: copy markets and their snapshots from the service into a local store that
// `msnap serve` and `--db` reads use. A re-run fetches only what is missing: a market already
// complete costs no snapshot request, one cut off continues after its newest stored snapshot.
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import type { Coin, Market, MarketType } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import type { MsnapApi } from '../../client/types.js';
import type { MirrorWriterPort } from '../../store/mirror-store.js';
import { DEFAULT_DB_PATH_HELP, isPostgresUrl, resolveDbPath, storeName } from '../../store/db-path.js';
import type { CliContext } from '../context.js';
import { readGlobals } from '../global-options.js';
import { runWithGlobals, type CliDeps } from '../deps.js';
import { TIME_HELP } from '../../domain/time.js';
import { explainStoreError } from '../../service/store-use.js';
import { openStore } from '../../store/open-store.js';
import { chooseMarkets } from '../../client/markets/market-selection.js';
import { parseSnapshotsArgs, type SnapshotsOptions } from './snapshots.js';
import { planPull, dryRunText, snapshotPageSize } from './pull-plan.js';
import { pullMarket } from './pull-market.js';
import { FOLLOW_SETTLE_MS, runFollow } from './pull-follow.js';

/** The checked arguments and flags of `msnap pull`. */
export interface PullOptions extends SnapshotsOptions {
  db: string;
  dryRun: boolean;
  /** --follow: after the pull, pull each market of the pair as it ends, until stopped. */
  follow?: boolean;
}

/** What one pull did, for its summary. */
export interface PullSummary {
  added: number;
  updated: number;
  skipped: number;
  rows: number;
  snapshotRequests: number;
  ms: number;
}

/** The markets a pull covers, oldest first: one by id, or as `snapshots` picks them. */
async function pullTargets(client: MsnapApi, opts: SnapshotsOptions, deps: CliDeps): Promise<Market[]> {
  if ('marketId' in opts.target) return [await client.market(opts.target.marketId)];
  return chooseMarkets(client, opts.target, opts, deps.note);
}

/** Pull every target into the store: each page its own committed transaction. */
async function runPull(opts: PullOptions, deps: CliDeps): Promise<PullSummary> {
  const started = performance.now();
  const client = await deps.client();
  const markets = await pullTargets(client, opts, deps);
  if (opts.dryRun) {
    // A dry run writes nothing, not even a new empty store.
    const store = isPostgresUrl(opts.db) || existsSync(opts.db) ? await openStore(opts.db, { readonly: true }) : undefined;
    try {
      const state = store?.mirrorState();
      // With --orderbook, rows whose depth was never fetched are fetched again.
      const held = new Map<string, number>();
      for (const m of markets) held.set(m.market_id, state ? await state.held(m.market_id, opts.orderbook) : 0);
      const plan = planPull(markets, (id) => held.get(id) ?? 0, await snapshotPageSize(client));
      deps.info(dryRunText(plan, await client.limits().catch(() => undefined), storeName(opts.db)));
    } finally {
      await store?.close();
    }
    return { added: 0, updated: 0, skipped: 0, rows: 0, snapshotRequests: 0, ms: performance.now() - started };
  }
  const store = await openStore(opts.db, { cacheMiB: 128 });
  const s: PullSummary = { added: 0, updated: 0, skipped: 0, rows: 0, snapshotRequests: 0, ms: 0 };
  let written = 0;
  // Every page is its own committed transaction: an interrupted pull keeps them all.
  const unregister = deps.onInterrupt(() =>
    deps.note(
      `interrupted: ${written.toLocaleString('en-US')} snapshots written to ${storeName(opts.db)} by this run are kept ` +
        `(${(s.added + s.updated + s.skipped).toLocaleString('en-US')} of ${markets.length.toLocaleString('en-US')} markets done); run the same command again to continue where it stopped`,
    ),
  );
  try {
    const writer: MirrorWriterPort = store.mirrorWriter({ baseUrl: await deps.serviceUrl(), dialect: (await client.capabilities().service?.dialect()) ?? 'v1', pulledAt: deps.now() });
    const progress = await deps.progress('pull');
    const total = markets.reduce((n, m) => n + m.snapshot_count, 0);
    let done = 0;
    try {
      for (const m of markets) {
        const before = await writer.local(m.market_id);
        const fresh = !before.exists;
        // Progress counts what the store holds, so a resumed pull shows how far along it is.
        done += Math.min(await writer.held(m.market_id, opts.orderbook), m.snapshot_count);
        const rows = await pullMarket(client, writer, m, opts, before, (pageRows) => {
          // Every request counts, one answered with no rows too (a resumed market may have none left).
          s.snapshotRequests++;
          done += pageRows;
          written += pageRows;
          progress.update({ pages: s.snapshotRequests, rows: done, total });
        });
        if (rows < 0) {
          s.skipped++;
        } else {
          s.rows += rows;
          if (fresh) s.added++;
          else s.updated++;
        }
      }
    } finally {
      progress.stop();
    }
    s.ms = performance.now() - started;
    deps.info(summaryText(s, markets.length, storeName(opts.db)));
    return s;
  } catch (err) {
    throw explainStoreError(err, opts.db);
  } finally {
    unregister();
    await store.close();
  }
}

/** --follow's pair; a market id, --to or --dry-run with it is a UsageError. */
function followTarget(opts: PullOptions): { coin: Coin; marketType: MarketType } {
  if ('marketId' in opts.target) throw new UsageError('--follow follows a COIN TYPE, like: msnap pull BTC 5m --follow');
  if (opts.to !== undefined) throw new UsageError('--follow pulls markets as they end: it takes no --to');
  if (opts.dryRun) throw new UsageError('--follow fetches: it goes without --dry-run');
  return opts.target;
}

function summaryText(s: PullSummary, markets: number, db: string): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return (
    `pulled ${n(markets)} market${markets === 1 ? '' : 's'} into ${db}: ${n(s.added)} new, ${n(s.updated)} updated, ` +
    `${n(s.skipped)} already complete; ${n(s.rows)} snapshots added in ${n(s.snapshotRequests)} snapshot request` +
    `${s.snapshotRequests === 1 ? '' : 's'}, ${(s.ms / 1000).toFixed(1)} s`
  );
}

/** The `pull` command. */
export function pullCommand(ctx: CliContext): Command {
  return new Command('pull')
    .description('Copy markets and their snapshots into a local store (resumable; re-runs fetch only what is missing)')
    .argument('<market-id|coin>', 'a market id (btc-updown-5m-1763769600), or a coin (BTC, ETH, SOL)')
    .argument('[type]', 'with a coin: the market type (5m, 15m, 1hr, 4hr, 24hr)')
    .option('--last <n>', 'with COIN TYPE: the latest N markets that have snapshots (default 1; all in a --from/--to range)')
    .option('--from <time>', 'snapshots at or after TIME (with COIN TYPE: markets overlapping the range)')
    .option('--to <time>', 'snapshots before TIME')
    .option('--orderbook', 'include orderbook depth')
    .option('--db <file|url>', `the local store to fill (${DEFAULT_DB_PATH_HELP})`)
    .option('--dry-run', 'say which markets, rows and requests it would take, and how long at the key\'s limits; fetch no snapshot')
    .option('--follow', 'with COIN TYPE: after the pull, keep the store current: pull each market as it ends, until Ctrl-C or SIGTERM')
    .addHelpText(
      'after',
      `
${TIME_HELP}
Interrupt it at any moment (Ctrl-C, kill, a network cut): every page already stored stays, and
the next run continues from there. Then read the store offline with --db, or serve it.
With --follow it then waits for the pair's next market to end (plus ${FOLLOW_SETTLE_MS / 1000} s for the service to write
its last snapshots), pulls it, and waits again, within the key's pace and data window: a builder
key builds a growing history. Ctrl-C or SIGTERM lets the market being pulled finish and exits 0.

Examples:
  $ msnap pull BTC 5m --last 12 --db btc.db
  $ msnap pull btc-updown-5m-1763769600 --orderbook
  $ msnap pull ETH 1hr --from 2d --dry-run
  $ msnap pull BTC 5m --last 12 --follow --db btc.db        # then every new market as it ends
  $ msnap snapshots BTC 5m --last 12 --csv --db btc.db      # offline, at disk speed
  $ msnap serve --db btc.db                                  # the same data as a service`,
    )
    .action(async (first: string, second: string | undefined, flags: Record<string, string | boolean | undefined>, cmd: Command) => {
      const base = parseSnapshotsArgs(first, second, flags as Parameters<typeof parseSnapshotsArgs>[2], ctx.now());
      const opts: PullOptions = { ...base, db: resolveDbPath(flags.db as string | undefined, ctx.env), dryRun: flags.dryRun === true };
      const follow = flags.follow === true ? followTarget(opts) : undefined;
      // --db names the store to fill here, not a store to read instead of the service.
      await runWithGlobals(ctx, { ...readGlobals(cmd), db: undefined }, async (deps) => {
        await runPull(opts, deps);
        if (follow) await runFollow({ ...opts, target: follow }, deps);
      });
    });
}
