// The small things a new user trips over (issue 23, item 8), each end to end with the built CLI
// against a real `msnap serve`: keys, case, Ctrl-C on pull, base URLs, -o paths, --timeout,
// times no market covers, future ranges, counts said right, and serve's dashboard address.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelayProxy, type DelayProxy } from './support/delay-proxy.js';
import { msnap, spawnMsnap } from './support/msnap-process.js';
import { startSeededService, type SeededService } from './support/seeded-service.js';

let svc: SeededService;
let slow: DelayProxy;
let newest: { market_id: string; start_time: number };

beforeAll(async () => {
  svc = await startSeededService('small-things', ['--days', '1', '--full', '5m=12,15m=0,1hr=0,4hr=0,24hr=0']);
  // Every answer a quarter second late: a pull lasts long enough to be interrupted midway.
  slow = await startDelayProxy(svc.served.url, () => 125);
  const list = JSON.parse(String((await svc.run(['markets', '--coin', 'BTC', '--type', '5m', '--limit', '3', '--json'])).stdout)) as Array<{ market_id: string; start_time: number; snapshot_count: number }>;
  newest = list.find((m) => m.snapshot_count === 2400)!;
}, 180_000);

afterAll(async () => {
  await slow?.close();
  await svc?.close();
});

const cfg = (name: string) => ({ MSNAP_CONFIG_DIR: path.join(svc.dir, `cfg-${name}`) });

describe('keys', () => {
  it('removing the active key makes another stored key active and says which', async () => {
    const env = { ...cfg('keys'), MSNAP_API_KEY: undefined, MSNAP_BASE_URL: undefined };
    for (const name of ['first', 'second']) {
      expect((await msnap(['keys', 'add', name, svc.env.MSNAP_API_KEY!, '--base-url', svc.served.url], { env })).exitCode).toBe(0);
    }
    const removed = await msnap(['keys', 'remove', 'second'], { env });
    expect(removed.stderr).toBe("Removed key 'second'. 'first' is the active key now (msnap keys use NAME picks another).");
    expect((await msnap(['markets', '--coin', 'BTC', '--limit', '1', '--csv'], { env })).exitCode).toBe(0);
    const last = await msnap(['keys', 'remove', 'first'], { env });
    expect(last.stderr).toBe("Removed key 'first'. No key is stored now; add one with: msnap keys add NAME");
  }, 60_000);
});

describe('case', () => {
  it('--format CSV, --api V1 and an upper-case market id are accepted like BTC and 5M', async () => {
    const lower = await svc.run(['snapshots', newest.market_id, '--format', 'csv']);
    const upper = await svc.run(['snapshots', newest.market_id.toUpperCase(), '--format', 'CSV', '--api', 'V1']);
    expect([upper.exitCode, upper.stdout]).toEqual([0, lower.stdout]);
    const bad = await svc.run(['markets', '--format', 'XML']);
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toContain("argument 'XML' is invalid. Allowed choices are");
  }, 60_000);
});

describe('Ctrl-C on pull', () => {
  it('says what was kept and that a re-run continues; the re-run does', async () => {
    const db = path.join(svc.dir, 'interrupted.db');
    const env = { ...svc.env, MSNAP_BASE_URL: slow.url, ...cfg('pull'), MSNAP_API: 'v1' };
    const run = spawnMsnap(['pull', 'BTC', '5m', '--last', '12', '--db', db], { env, cwd: svc.dir, all: false });
    // Interrupt once three markets' pages have come back through the slow proxy.
    slow.log.length = 0;
    const pagesIn = () => slow.log.filter((e) => e.path.includes('/snapshots?') && e.status === 200 && !Number.isNaN(e.end)).length;
    const deadline = Date.now() + 30_000;
    while (pagesIn() < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(pagesIn()).toBeLessThan(12);
    run.kill('SIGINT');
    const r = await run;
    expect(r.exitCode).toBe(130);
    expect(String(r.stderr)).toMatch(
      new RegExp(`^msnap: note: interrupted: [\\d,]+ snapshots written to ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} by this run are kept \\(\\d+ of 12 markets done\\); run the same command again to continue where it stopped$`, 'm'),
    );
    const again = await svc.run(['pull', 'BTC', '5m', '--last', '12', '--db', db]);
    expect(again.exitCode).toBe(0);
    expect(String(again.stderr)).toMatch(/pulled 12 markets into .*: \d+ new, \d+ updated, [1-9]\d* already complete/);
  }, 90_000);
});

describe('messages that point at the real mistake', () => {
  it('a base URL with the API path gets a hint to drop it', async () => {
    const r = await svc.run(['markets', '--base-url', `${svc.served.url}/api/v1`]);
    expect([r.exitCode, String(r.stderr).split('\n')]).toEqual([
      2,
      [`msnap: --base-url: '${svc.served.url}/api/v1' ends in the API path /api/v1, which msnap adds itself`, `hint: drop it: ${svc.served.url}`],
    ]);
  });

  it('-o into a directory that takes no files is not "no such directory"', async () => {
    const r = await svc.run(['markets', '--limit', '1', '-o', '/proc/x.csv']);
    expect([r.exitCode, r.stderr]).toEqual([2, 'msnap: cannot write /proc/x.csv: /proc does not take new files']);
    const missing = await svc.run(['markets', '--limit', '1', '-o', path.join(svc.dir, 'nope', 'x.csv')]);
    expect(missing.stderr).toBe(`msnap: cannot write ${path.join(svc.dir, 'nope', 'x.csv')}: no such directory`);
  });

  it('--timeout 0 is refused in words that do not allow it', async () => {
    const r = await svc.run(['markets', '--timeout', '0']);
    expect([r.exitCode, r.stderr]).toEqual([2, "msnap: --timeout must be a number of seconds above 0 and at most 3600 (like 30 or 2.5), got '0'"]);
  });

  it('a time no market covers is named as a time, not as a derived id', async () => {
    const r = await svc.run(['at', 'BTC', '5m', '0000000000000']);
    expect([r.exitCode, r.stderr]).toEqual([6, 'msnap: no BTC 5m market covers 1970-01-01T00:00:00.000Z (btc-updown-5m-0 does not exist)']);
  });

  it('--from in the future says so', async () => {
    for (const args of [['snapshots', 'BTC', '5m'], ['markets', '--coin', 'BTC'], ['quality', 'BTC', '5m']]) {
      const r = await svc.run([...args, '--from', '2100-01-01']);
      expect(r.exitCode, args[0]).toBe(2);
      expect(String(r.stderr), args[0]).toMatch(/^msnap: --from 2100-01-01T00:00:00\.000Z is in the future \(now is .*\): nothing has been recorded there yet$/);
    }
  });
});

describe('counts and estimates said right', () => {
  it('"1 market added", and a dry run shorter than a second is "under a second"', async () => {
    const file = path.join(svc.dir, 'one.ndjson');
    expect((await svc.run(['snapshots', newest.market_id, '--ndjson', '-o', file, '--quiet'])).exitCode).toBe(0);
    const db = path.join(svc.dir, 'one.db');
    const r = await svc.run(['serve', 'import', file, '--db', db]);
    expect(String(r.stdout)).toMatch(/: 2,400 snapshots added, 0 already present; 1 market added, 0 updated;/);
    const dry = await svc.run(['snapshots', newest.market_id, '--dry-run']);
    expect(String(dry.stderr)).toMatch(/, under a second at the pro key's limits/);
  });
});

describe('serve', () => {
  it('prints the dashboard address after the listening line', () => {
    expect(svc.served.output()).toMatch(new RegExp(`^msnap serve listening on ${svc.served.url}\\ndashboard \\(sign up, keys, markets\\): ${svc.served.url}/ in a browser\\n`));
  });
});
