// `msnap record COIN TYPE [COIN TYPE …] --db STORE`: live Polymarket markets recorded into a store
// (docs/real-data.md): Gamma for the markets, the CLOB market channel for their books, RTDS for
// Chainlink prices. Runs until Ctrl-C or SIGTERM, which flush what was received and exit 0.
import { Command, Option } from 'commander';
import type { Coin, MarketType } from '../../domain/market.js';
import { UsageError } from '../../errors.js';
import type { RecordingStatus, RecordingTimings } from '../../realdata/live/recording.js';
import type { SourceGetOptions } from '../../realdata/source-get.js';
import { DEFAULT_DB_PATH_HELP, resolveDbPath, storeName } from '../../store/db-path.js';
import type { CliContext } from '../context.js';
import { runAdminWithDeps, type CliDeps } from '../deps.js';
import { readGlobals } from '../global-options.js';
import { counted } from '../output/terminal/count-text.js';
import { addRecordPair, DEFAULT_CLOB_WS_URL, DEFAULT_GAMMA_URL, DEFAULT_RTDS_URL, recordUrls } from '../../service/record-settings.js';
import { usingStore } from '../../service/store-use.js';

/** Bad frames logged one by one without --verbose. */
const MAX_BAD_FRAMES_SHOWN = 5;

/** Checked arguments and flags of `msnap record`. */
export interface RecordFlags {
  pairs: { coin: Coin; type: MarketType }[];
  db: string;
  raw?: string;
  clobUrl: string;
  rtdsUrl: string;
  gammaUrl: string;
  verbose: boolean;
}

/** What tests may set beside the flags: the clock, shorter timings, fast Gamma retries, a stop signal. */
export interface RecordRuntime {
  now?: () => number;
  timings?: Partial<RecordingTimings>;
  gammaGet?: SourceGetOptions;
  signal?: AbortSignal;
}

/** Use to check `record`'s arguments: COIN TYPE pairs, then the flags (URLs from flags, else the environment). */
export function parseRecordFlags(
  args: string[],
  raw: { db?: string; raw?: string; clobUrl?: string; rtdsUrl?: string; gammaUrl?: string },
  env: NodeJS.ProcessEnv,
  verbose = false,
): RecordFlags {
  if (args.length === 0 || args.length % 2 !== 0) throw new UsageError('name COIN TYPE pairs, like: msnap record BTC 5m ETH 15m --db real.db');
  const pairs: RecordFlags['pairs'] = [];
  for (let i = 0; i < args.length; i += 2) addRecordPair(pairs, args[i]!, args[i + 1]!);
  const db = resolveDbPath(raw.db, env);
  return { pairs, db, ...(raw.raw !== undefined ? { raw: raw.raw } : {}), ...recordUrls(raw, env), verbose };
}

/** The status line's text after a batch, after the progress line's markets and snapshot rows: frames per second, lag, gaps. Pure. */
export function recordStatusText(s: RecordingStatus, framesPerSecond: number): string {
  const parts = [
    `${Math.round(framesPerSecond).toLocaleString('en-US')} frames/s`,
    `lag ${(Math.max(0, s.lagMs) / 1000).toFixed(1)} s`,
    counted(s.gaps, 'gap'),
  ];
  if (s.awaitingWinner > 0) parts.push(`${s.awaitingWinner} awaiting a winner`);
  if (!s.connected.clob) parts.push('market channel down');
  if (!s.connected.rtds) parts.push('prices down');
  return parts.join(' · ');
}

/** Records until stopped; writes the closing summary to stdout. */
export async function runRecord(opts: RecordFlags, deps: CliDeps, rt: RecordRuntime = {}): Promise<RecordingStatus> {
  const { recordLive } = await import('../../realdata/live/recording.js');
  const { RawLog } = await import('../../realdata/live/raw-log.js');
  const stop = new AbortController();
  rt.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const unregister = deps.onStop(() => stop.abort(), { sigterm: true });
  const progress = await deps.progress('record', { resultAtEnd: true });
  const now = rt.now ?? deps.now;
  let last = { at: Date.now(), frames: 0 };
  let fps = 0;
  let s: RecordingStatus;
  // Without --verbose only trouble is logged, and bad frames only the first few (the summary counts them all).
  let badShown = 0;
  const log = (line: string): void => {
    const bad = line.includes('bad frame');
    if (!opts.verbose && !bad && !line.includes('failed')) return;
    if (bad && !opts.verbose && ++badShown > MAX_BAD_FRAMES_SHOWN) return;
    deps.writeErr(`msnap: ${line}\n`);
    if (bad && badShown === MAX_BAD_FRAMES_SHOWN && !opts.verbose) deps.writeErr('msnap: further bad frames are only counted (--verbose shows each)\n');
  };
  try {
    s = await usingStore(deps.openStore(opts.db), opts.db, (store) =>
      recordLive(store.recordWrites(), {
        pairs: opts.pairs,
        clobUrl: opts.clobUrl,
        rtdsUrl: opts.rtdsUrl,
        gammaUrl: opts.gammaUrl,
        now,
        signal: stop.signal,
        ...(rt.timings ? { timings: rt.timings } : {}),
        ...(rt.gammaGet ? { gammaGet: rt.gammaGet } : {}),
        ...(opts.raw !== undefined ? { raw: new RawLog(opts.raw) } : {}),
        log,
        onStatus: (st) => {
          const wall = Date.now();
          if (wall - last.at >= 1000) {
            fps = ((st.frames - last.frames) * 1000) / (wall - last.at);
            last = { at: wall, frames: st.frames };
          }
          progress.update({ unit: 'markets', pages: st.recording, rows: st.snapshots, extra: recordStatusText(st, fps) });
        },
      }),
    );
  } finally {
    progress.stop();
    unregister();
  }
  deps.writeOut(
    `recorded into ${storeName(opts.db)}: ${counted(s.marketsAdded, 'new market')}, ${counted(s.snapshots, 'snapshot')}, ` +
      `${counted(s.gaps, 'gap')}, ${counted(s.frames, 'frame')} (${s.badFrames.toLocaleString('en-US')} bad)` +
      (s.awaitingWinner > 0 ? `; ${s.awaitingWinner} ended without a winner yet (the next run asks Gamma again)` : '') +
      '\n',
  );
  return s;
}

/** The `record` command. */
export function recordCommand(ctx: CliContext): Command {
  return new Command('record')
    .description('Record live Polymarket crypto Up or Down markets (books, trades, Chainlink prices) into a store')
    .argument('<coin-type...>', 'COIN TYPE pairs: BTC 5m [ETH 15m …]')
    .option('--db <file|url>', `store to write: an SQLite file or a postgres:// URL (default: ${DEFAULT_DB_PATH_HELP})`)
    .option('--raw <dir>', 'also keep every frame as received, in hourly gzip JSON-lines files in DIR')
    .addOption(new Option('--clob-url <url>', `CLOB market channel (env MSNAP_CLOB_WS_URL; default ${DEFAULT_CLOB_WS_URL})`))
    .addOption(new Option('--rtds-url <url>', `RTDS socket for Chainlink prices (env MSNAP_RTDS_URL; default ${DEFAULT_RTDS_URL})`))
    .addOption(new Option('--gamma-url <url>', `Gamma API base (env MSNAP_GAMMA_URL; default ${DEFAULT_GAMMA_URL})`))
    .addHelpText(
      'after',
      `
Finds the current and next market of each pair on Gamma, subscribes to their books before they
open, and writes snapshots on the 125 ms grid about a second behind the clock. After a market
ends, Gamma is asked until it is closed: the winner is Gamma's; price_start and price_end are
the recorded Chainlink prices. A drop, a close or a stall (no frame for 30 s) reconnects with a
capped, jittered backoff; the time away is a gap (no snapshots, never interpolated). A bad frame
is logged and skipped. Run it again on the same store to resume: nothing is written twice.
Into PostgreSQL (--db postgres://…) each batch is one transaction; any number of msnap serve
--store instances on that database show it as soon as it commits. PostgreSQL lost midway (a
restart, a failover) loses nothing: the sockets stay connected, the frames are held in memory and
the batch is tried again every second; once it is back they are written, with no gap. Away for
5 minutes, the run ends (exit 7); what was committed before stays whole.
Status on a terminal: markets, frames/s, lag, gaps; --verbose logs connects, drops and markets.

Exit codes: 0 stopped by Ctrl-C or SIGTERM after writing everything received; 2 bad arguments;
8 the store is write-locked by another process; 7 PostgreSQL cannot be reached (at the start, or
for 5 minutes of a run); 10 the disk is full; 1 anything else.

Examples:
  $ msnap record BTC 5m --db real.db
  $ msnap record BTC 5m ETH 5m BTC 15m --db real.db --raw raw/ --verbose
  $ msnap record BTC 5m --db postgres://msnap@db.internal:5432/msnap
  $ msnap serve --db real.db --record BTC:5m,ETH:5m   # record and serve in one process`,
    )
    .action(async (args: string[], raw: Parameters<typeof parseRecordFlags>[1], cmd: Command) => {
      const opts = parseRecordFlags(args, raw, ctx.env, readGlobals(cmd).verbose === true);
      await runAdminWithDeps(ctx, cmd, async (deps) => void (await runRecord(opts, deps)));
    });
}
