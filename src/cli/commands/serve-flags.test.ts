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
