// The raw files of `msnap record --raw` read back into a store: every line replayed, in the order
// written, through the recorder's own core with the line's receipt time as the clock, so a store
// rebuilt from them (after a parser fix, say) equals what the recorder would have written, gaps
// included (the files say when each connection opened and went down).
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { constants, createGunzip } from 'node:zlib';
import type { RecordWrites } from '../../store/record-writes.js';
import type { RealMarket } from '../import/real-market.js';
import type { RawLine } from './raw-log.js';
import { Recorder, type RecorderStats } from './recorder.js';

/** A raw file's name: `msnap-raw-YYYY-MM-DDTHH.jsonl.gz`. */
export const RAW_FILE = /msnap-raw-\d{4}-\d{2}-\d{2}T\d{2}\.jsonl\.gz$/;

/** Batches are written every this much recorded time (the live recorder's lag still applies within). */
const FLUSH_EVERY_MS = 1000;

/** What a replay counted, with the lines it could not read (a crash's cut tail, a damaged line). */
export interface RawReplayStats extends RecorderStats {
  lines: number;
  badLines: number;
}

/** Use to rebuild the markets' snapshots from raw files (given in hour order); returns the counts. */
export async function replayRaw(bulk: RecordWrites, files: readonly string[], markets: readonly RealMarket[], opts: { lagMs?: number; log?: (line: string) => void } = {}): Promise<RawReplayStats> {
  let clock = 0;
  let recorder: Recorder | undefined;
  let lastFlush = 0;
  const out = { lines: 0, badLines: 0 };
  let opens = 0;
  for (const file of files) {
    // A run stopped by a crash leaves a gzip member without its end: read what it holds.
    const lines = createInterface({ input: createReadStream(file).pipe(createGunzip({ finishFlush: constants.Z_SYNC_FLUSH })), crlfDelay: Infinity });
    try {
      for await (const text of lines) {
        if (text === '') continue;
        let line: RawLine;
        try {
          line = JSON.parse(text) as RawLine;
        } catch {
          out.badLines++;
          continue;
        }
        out.lines++;
        clock = Math.max(clock, line.t);
        if (!recorder) {
          recorder = new Recorder(bulk, { lagMs: opts.lagMs ?? 1000, now: () => clock });
          // In window order, as the recorder finds them: the rebuilt markets get the same row ids.
          for (const m of [...markets].sort((a, b) => a.startTime - b.startTime || a.marketId.localeCompare(b.marketId))) recorder.track(m);
        }
        if ('open' in line) {
          if (line.src === 'clob') {
            recorder.clobOpen(line.t);
            opens++;
          }
        } else if ('down' in line) {
          if (line.src === 'clob') recorder.clobDown(line.t);
        } else if (line.src === 'clob') recorder.clobFrame(line.frame, line.t);
        else if (line.src === 'rtds') recorder.rtdsFrame(line.frame);
        if (clock - lastFlush >= FLUSH_EVERY_MS) {
          await recorder.flush(clock);
          lastFlush = clock;
        }
      }
    } catch (err) {
      opts.log?.(`${file}: read up to a damaged end (${(err as Error).message})`);
    }
  }
  if (recorder) await recorder.flush(clock, true);
  const stats = recorder?.stats ?? { frames: 0, badFrames: 0, events: 0, prices: 0, gaps: 0, marketsAdded: 0, snapshots: 0, lagMs: 0 };
  // Each connection after the first followed a time away: a gap.
  return { ...stats, gaps: Math.max(0, opens - 1), ...out };
}
