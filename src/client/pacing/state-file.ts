// Where processes on one machine keep one key's pace: a small JSON file per base URL and key in
// the user's state directory, read and rewritten under a file lock (file-lock.ts) around every
// send and every answer. The file is named by a hash, never by the key. A process that dies
// leaves its requests "in flight" there; they are dropped as soon as its pid is gone.
import { createHash } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { processAlive, withFileLock } from './file-lock.js';
import type { SharedPace, SharedRecord } from './pacer.js';

/** A request listed in flight for longer than this is forgotten even if its process lives. */
const INFLIGHT_MAX_MS = 10 * 60_000;

/** Use for the CLI's default: $MSNAP_STATE_DIR, else $XDG_STATE_HOME/msnap, else ~/.local/state/msnap. */
export function paceStateDir(env: NodeJS.ProcessEnv): string {
  if (env.MSNAP_STATE_DIR) return env.MSNAP_STATE_DIR;
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(homedir(), '.local', 'state');
  return path.join(base, 'msnap');
}

/** The state file of one base URL and key inside `dir`. */
export function paceStateFile(dir: string, baseUrl: string, apiKey: string): string {
  const digest = createHash('sha256').update(`${baseUrl.replace(/\/+$/, '')}\n${apiKey}`).digest('hex');
  return path.join(dir, `pace-${digest.slice(0, 32)}.json`);
}

function finite(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** The record in `text`, or undefined when it is not one (a foreign or damaged file starts afresh). */
function parseRecord(text: string): SharedRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = raw as Partial<Record<keyof SharedRecord, unknown>>;
  if (!r || typeof r !== 'object' || !finite(r.tokens) || !finite(r.last) || !finite(r.sends)) return undefined;
  if (!Array.isArray(r.log) || !r.log.every(finite) || !Array.isArray(r.inflight)) return undefined;
  const inflight = (r.inflight as unknown[]).filter(
    (e): e is { pid: number; at: number } => !!e && typeof e === 'object' && finite((e as { pid?: unknown }).pid) && finite((e as { at?: unknown }).at),
  );
  return { tokens: r.tokens, last: r.last, sends: r.sends, log: r.log as number[], inflight };
}

/** Use one per client with a key: the pace it shares with other msnap processes on the machine. */
export class StateFile implements SharedPace {
  readonly pid: number;
  private readonly now: () => number;
  private readonly alive: (pid: number) => boolean;
  private dirReady = false;
  // The text this process last wrote and the record it held.
  private lastText: string | undefined;
  private lastRecord: SharedRecord | undefined;

  constructor(
    readonly file: string,
    opts: { now: () => number; pid?: number; alive?: (pid: number) => boolean },
  ) {
    this.now = opts.now;
    this.pid = opts.pid ?? process.pid;
    this.alive = opts.alive ?? processAlive;
  }

  /** See SharedPace.update. */
  update<T>(fn: (record: SharedRecord | undefined) => { value: T; record: SharedRecord | undefined }): T {
    if (!this.dirReady) {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    return withFileLock(`${this.file}.lock`, () => {
      const fd = this.open();
      try {
        const text = readFileSync(fd, 'utf8');
        const { value, record } = fn(this.read(text));
        if (record) this.write(fd, record, text.length);
        return value;
      } finally {
        closeSync(fd);
      }
    });
  }

  private open(): number {
    try {
      return openSync(this.file, 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return openSync(this.file, 'w+', 0o600);
    }
  }

  private read(text: string): SharedRecord | undefined {
    // Unchanged since our own write (no other process ran): skip parsing it again.
    const record = text === this.lastText ? this.lastRecord : parseRecord(text);
    if (!record) return undefined;
    const now = this.now();
    // Requests of processes that are gone will never be answered; nor will very old ones.
    record.inflight = record.inflight.filter((e) => (e.pid === this.pid || this.alive(e.pid)) && now - e.at < INFLIGHT_MAX_MS);
    return record;
  }

  // Rewritten in place from the start, padded with blanks (JSON ignores them) over a longer old
  // text: truncating or renaming over a file makes ext4 and others flush it to disk, which cost
  // milliseconds per request; readers hold the lock, so none sees a half-written text.
  private write(fd: number, record: SharedRecord, oldLength: number): void {
    const json = JSON.stringify(record);
    // Far shorter than before (an old burst left the window): truncate once rather than pad forever.
    const shrink = json.length * 2 < oldLength;
    const text = shrink ? json : json.padEnd(oldLength, ' ');
    try {
      writeSync(fd, text, 0);
      if (shrink) ftruncateSync(fd, text.length);
      this.lastText = text;
      this.lastRecord = record;
    } catch {
      // A full or read-only disk costs only the sharing; the next update tries again.
    }
  }
}
