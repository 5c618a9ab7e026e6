// Dashboard throttles scaled out: two built `msnap serve` processes over one SQLite file share
// their limits through one throwaway Redis (--limiter), so sign-in and sign-up attempts spread
// over both get no more than one instance allows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_ATTEMPTS } from '../src/dashboard/dashboard-limits.js';
import { DashboardClient } from './support/dashboard-client.js';
import { buildIfStale, msnap, startServe, type Served } from './support/msnap-process.js';
import { announceRedisSkip, redisAvailable, ThrowawayRedis } from './support/throwaway-redis.js';

const SUITE = 'dashboard throttles shared through Redis (2 instances)';
const noRedis = !redisAvailable();
if (noRedis) announceRedisSkip(SUITE);

describe.skipIf(noRedis)(SUITE, { timeout: 60_000 }, () => {
  let dir: string;
  let redis: ThrowawayRedis;
  const instances: Served[] = [];
  const clients: DashboardClient[] = [];

  beforeAll(async () => {
    await buildIfStale();
    dir = mkdtempSync(path.join(tmpdir(), 'msnap-dash-redis-'));
    redis = await ThrowawayRedis.start();
    const db = path.join(dir, 'shared.db');
    const made = await msnap(['serve', 'accounts', 'password', 'owner', '--plan', 'pro', '--db', db], { input: 'owner password 123\n', cwd: dir });
    expect(made.exitCode, made.stderr).toBe(0);
    for (let i = 0; i < 2; i++) instances.push(await startServe(db, { args: ['--limiter', redis.url, '--signups-per-day', '1'] }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const s of instances) expect((await s.stop()).exitCode).toBe(0);
    await redis?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The same client address on both instances. */
  async function both(address: string): Promise<DashboardClient[]> {
    const cs = await Promise.all(instances.map((s) => new DashboardClient(s.url, address).start()));
    clients.push(...cs);
    return cs;
  }

  it(`sign-in attempts on one name from one address, alternating instances: ${ACCOUNT_ATTEMPTS.burst} in all, then 429 on either`, async () => {
    const [a, b] = await both('127.0.0.6');
    const statuses: number[] = [];
    for (let i = 0; i < ACCOUNT_ATTEMPTS.burst + 2; i++) statuses.push((await (i % 2 ? b! : a!).signIn('owner', `guess ${i}`)).status);
    expect(statuses).toEqual([...Array(ACCOUNT_ATTEMPTS.burst).fill(401), 429, 429]);
  });

  it('sign-ups per address per day count over both instances', async () => {
    const [a, b] = await both('127.0.0.7');
    expect((await a!.post('/signup', { account: 'first-trial', password: 'long enough password' })).status).toBe(303);
    expect((await b!.post('/signup', { account: 'second-trial', password: 'long enough password' })).status).toBe(429);
  });
});
