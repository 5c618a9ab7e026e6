import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { DEFAULT_SIGNUPS_PER_DAY } from '../../dashboard/dashboard-limits.js';
import { parseServeFlags } from './serve-flags.js';

const BASE = { host: '127.0.0.1', port: '0', demo: false, signup: true };

describe('serve flags: abuse and proxy settings', () => {
  it('reads --signups-per-day, --trust-proxy, --public-url and --allowed-hosts, flags before environment', () => {
    const env = { MSNAP_DB: 'x.db', MSNAP_TRUST_PROXY: '10.0.0.9', MSNAP_PUBLIC_URL: 'https://env.example.com', MSNAP_ALLOWED_HOSTS: 'env.example.com' };
    const fromEnv = parseServeFlags(BASE, env);
    expect(fromEnv.signupsPerDay).toBe(DEFAULT_SIGNUPS_PER_DAY);
    expect(fromEnv.proxy).toEqual({ trusted: ['10.0.0.9'], publicUrl: new URL('https://env.example.com'), allowedHosts: ['env.example.com'] });
    const flags = parseServeFlags({ ...BASE, signupsPerDay: '2', trustProxy: 'loopback, 10.0.0.1', publicUrl: 'https://data.example.com', allowedHosts: 'A.example.com,*' }, env);
    expect(flags.signupsPerDay).toBe(2);
    expect(flags.proxy).toEqual({ trusted: ['loopback', '10.0.0.1'], publicUrl: new URL('https://data.example.com'), allowedHosts: ['a.example.com', '*'] });
  });

  it('reads the slow-reader limits from the environment, and leaves them to the listener otherwise', () => {
    expect(parseServeFlags(BASE, { MSNAP_DB: 'x.db', MSNAP_RESPONSE_BUDGET_MB: '64', MSNAP_WRITE_STALL_MS: '2000' }).responseLimits).toEqual({ totalBytes: 64 * 2 ** 20, stallMs: 2000 });
    expect(parseServeFlags(BASE, { MSNAP_DB: 'x.db' }).responseLimits).toEqual({ totalBytes: undefined, stallMs: undefined });
  });

  it.each([
    [{ signupsPerDay: '0' }, /--signups-per-day must be an integer from 1/],
    [{ signupsPerDay: 'lots' }, /--signups-per-day/],
    [{ trustProxy: 'proxy.internal' }, /--trust-proxy takes proxy IP addresses or "loopback"/],
    [{ publicUrl: 'data.example.com' }, /--public-url takes the origin browsers use/],
    [{ publicUrl: 'https://data.example.com/msnap' }, /--public-url takes the origin/],
    [{ allowedHosts: 'a.example.com:8080' }, /--allowed-hosts takes host names \(no port\)/],
  ])('refuses %o in one line', (extra, message) => {
    expect(() => parseServeFlags({ ...BASE, ...extra }, { MSNAP_DB: 'x.db' })).toThrow(UsageError);
    expect(() => parseServeFlags({ ...BASE, ...extra }, { MSNAP_DB: 'x.db' })).toThrow(message);
  });
});

describe('serve flags: --replay, --speed, --until', () => {
  const NOW = Date.UTC(2026, 0, 10, 12);
  const env = { MSNAP_DB: 'x.db' };

  it('reads FROM and TO as any TIME, the speed as a number > 0 (default 1), and leaves --live off', () => {
    expect(parseServeFlags({ ...BASE, replay: '2h', speed: '60', until: '2026-01-10T11:30:00Z' }, env, NOW).replay).toEqual({
      from: NOW - 7_200_000,
      until: Date.UTC(2026, 0, 10, 11, 30),
      speed: 60,
    });
    const demo = parseServeFlags({ ...BASE, demo: true, replay: '1768046400' }, env, NOW);
    expect(demo.replay).toEqual({ from: 1_768_046_400_000, until: undefined, speed: 1 });
    expect(demo.live).toBe(false);
    expect(parseServeFlags({ ...BASE, replay: 'now', speed: '0.5' }, env, NOW).replay?.speed).toBe(0.5);
    expect(parseServeFlags(BASE, env, NOW).replay).toBeUndefined();
  });

  it.each([
    [{ replay: '1h', live: true }, /cannot run with --live/],
    [{ replay: '1h', speed: '0' }, /--speed must be a number > 0/],
    [{ replay: '1h', speed: '-2' }, /--speed must be a number > 0/],
    [{ replay: '1h', speed: 'fast' }, /--speed must be a number > 0/],
    [{ replay: '1h', until: '2h' }, /--until must not be before --replay FROM/],
    [{ replay: 'yesterday' }, /--replay: .* accepted:/],
    [{ speed: '60' }, /--speed and --until go with --replay FROM/],
  ])('refuses %o in one line', (extra, message) => {
    expect(() => parseServeFlags({ ...BASE, ...extra }, env, NOW)).toThrow(UsageError);
    expect(() => parseServeFlags({ ...BASE, ...extra }, env, NOW)).toThrow(message);
  });
});
