// The built `msnap serve --demo` (live) over a small seeded file, its clock shifted with
// MSNAP_CLOCK_OFFSET_MS so a 5m boundary a day ahead comes `leadMs` after the seed starts: a test
// sees markets open and resolve within seconds.
import path from 'node:path';
import { msnap, spawnMsnap } from './msnap-process.js';

const FIVE_MIN = 300_000;

/** A running live demo service and what a client needs to reach it. */
export interface LiveDemo {
  /** The 5m boundary the clock reaches `leadMs` after the seed started (epoch ms, shifted clock). */
  boundary: number;
  /** MSNAP_CLOCK_OFFSET_MS, MSNAP_BASE_URL and MSNAP_API_KEY (the demo key of `plan`). */
  env: Record<string, string>;
  /** serve's stderr so far. */
  stderr(): string;
  stop(): Promise<unknown>;
}

/** Use in a beforeAll: seeds `dir`/live.db with two days of full 5m markets, serves it live and resolves with the demo key of `plan`. */
export async function startLiveDemo(dir: string, opts: { leadMs?: number; plan?: 'builder' | 'pro' } = {}): Promise<LiveDemo> {
  const db = path.join(dir, 'live.db');
  const boundary = Math.ceil((Date.now() + 86_400_000) / FIVE_MIN) * FIVE_MIN;
  const env: Record<string, string> = { MSNAP_CLOCK_OFFSET_MS: String(boundary - (opts.leadMs ?? 14_000) - Date.now()) };
  const seeded = await msnap(['serve', 'seed', '--db', db, '--days', '1', '--full', '5m=2,15m=0,1hr=0,4hr=0,24hr=0'], { env, timeout: 60_000, cwd: dir });
  if (seeded.exitCode !== 0) throw new Error(`seed failed: ${seeded.stderr}`);
  const proc = spawnMsnap(['serve', '--demo', '--db', db, '--port', '0'], { env, all: false });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const plan = opts.plan ?? 'pro';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out} ${err}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const url = /listening on (http:\S+)\n/.exec(out)?.[1];
      const key = new RegExp(`demo ${plan} key \\(demo-${plan}\\): (\\S+)\\n`).exec(out)?.[1];
      if (url && key) {
        clearTimeout(timer);
        env.MSNAP_BASE_URL = url;
        env.MSNAP_API_KEY = key;
        resolve();
      }
    });
    void proc.then((r) => reject(new Error(`serve exited (${r.exitCode}): ${err}`)));
  });
  return {
    boundary,
    env,
    stderr: () => err,
    stop: async () => {
      proc.kill('SIGTERM');
      return proc;
    },
  };
}
