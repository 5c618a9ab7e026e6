// A real service for end-to-end tests of the analyst commands: `msnap serve seed` into a temp
// SQLite file, a pro key from `msnap serve keys create`, and `msnap serve` on port 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildIfStale, createKey, msnap, seed, startServe, type Served } from './msnap-process.js';

/** A seeded, running `msnap serve` and the environment that points the CLI at it. */
export interface SeededService {
  dir: string;
  db: string;
  served: Served;
  /** MSNAP_BASE_URL and MSNAP_API_KEY for `msnap(args, { env })`. */
  env: Record<string, string>;
  /** Run the built CLI against this service. */
  run(args: string[], opts?: { input?: string; env?: Record<string, string | undefined> }): ReturnType<typeof msnap>;
  /** Stop the server and delete the temp directory. */
  close(): Promise<void>;
}

/** Use in beforeAll: builds if stale, seeds (`seedArgs` for `serve seed`), starts the server. */
export async function startSeededService(prefix: string, seedArgs: string[]): Promise<SeededService> {
  await buildIfStale();
  const dir = mkdtempSync(path.join(tmpdir(), `msnap-${prefix}-`));
  const db = path.join(dir, 'data.db');
  await seed(db, seedArgs);
  const key = await createKey(db, 'analyst', 'pro');
  const served = await startServe(db);
  const env = { MSNAP_BASE_URL: served.url, MSNAP_API_KEY: key };
  return {
    dir,
    db,
    served,
    env,
    run: (args, opts = {}) =>
      msnap(args, { cwd: dir, env: { ...env, ...opts.env }, ...(opts.input !== undefined ? { input: opts.input } : {}), timeout: 60_000 }),
    async close() {
      await served.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
