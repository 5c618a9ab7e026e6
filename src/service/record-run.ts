// `serve --record`: the recorder of `msnap record` run inside serve, on serve's own store, so one
// command is a live service on real data. The stream follows each batch the recorder writes (read
// right after the write, as --live does); stopping flushes what was received before the store closes.
import type { RecordingTimings } from '../realdata/live/recording.js';
import type { RecordWrites } from '../store/record-writes.js';
import type { LiveRun } from './live-run.js';
import type { RecordPair, RecordUrls } from './record-settings.js';

/** What serve --record records and from where (the URLs as `msnap record` takes them, record-settings.ts). */
export interface RecordSettings extends RecordUrls {
  pairs: readonly RecordPair[];
  /** Also keep every frame as received in hourly files in this directory. */
  raw?: string;
  /** Shorter timings (tests and benchmarks); RECORDING_DEFAULTS where absent. */
  timings?: Partial<RecordingTimings>;
}

/** A recording inside serve: the stream's view of it (as a live world's), started once listening, stopped with a flush. */
export interface RecordRun extends Pick<LiveRun, 'through' | 'onAdvance'> {
  start(): void;
  /** Stops the sockets, writes what was received and resolves once the store may close. */
  stop(): Promise<void>;
}

/** Bad frames logged one by one; the rest are only counted, as `msnap record` does without --verbose. */
const MAX_BAD_FRAMES_LOGGED = 5;

/** Use in startService before listening, on its store (an SQLite file or PostgreSQL). */
export async function prepareRecord(
  store: { recordWrites(): RecordWrites; recordedThrough?(): Promise<number | undefined> },
  settings: RecordSettings,
  deps: { now: () => number; log: (line: string) => void },
): Promise<RecordRun> {
  const [{ recordLive }, { RawLog }] = await Promise.all([import('../realdata/live/recording.js'), import('../realdata/live/raw-log.js')]);
  const stop = new AbortController();
  const listeners = new Set<() => void>();
  // Snapshots before the recorded end are written; the stream reads (through, visible], so one ms less.
  const recorded = async () => ((await store.recordedThrough?.()) ?? deps.now()) - 1;
  let through = await recorded();
  let bad = 0;
  const log = (line: string): void => {
    if (line.includes('bad frame') && ++bad > MAX_BAD_FRAMES_LOGGED) return;
    deps.log(`msnap serve: record: ${line}`);
  };
  let run: Promise<unknown> | undefined;
  return {
    through: () => through,
    onAdvance(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    start() {
      const pairs = settings.pairs.map((p) => `${p.coin} ${p.type}`).join(', ');
      deps.log(`msnap serve: recording ${pairs} from ${settings.clobUrl} into this store`);
      run ??= recordLive(store.recordWrites(), {
        pairs: settings.pairs,
        clobUrl: settings.clobUrl,
        rtdsUrl: settings.rtdsUrl,
        gammaUrl: settings.gammaUrl,
        now: deps.now,
        signal: stop.signal,
        log,
        ...(settings.timings ? { timings: settings.timings } : {}),
        ...(settings.raw !== undefined ? { raw: new RawLog(settings.raw) } : {}),
        onStatus: () => {
          // While the store is away the stream simply waits; the recorder holds the frames.
          recorded().then(
            (t) => {
              through = Math.max(through, t);
              for (const fn of listeners) fn();
            },
            () => undefined,
          );
        },
      }).catch((err: unknown) => {
        // The service goes on serving what was stored; the log says the recording ended.
        deps.log(`msnap serve: recording stopped: ${err instanceof Error ? err.message : String(err)}`);
      });
    },
    async stop() {
      stop.abort();
      await run;
    },
  };
}
