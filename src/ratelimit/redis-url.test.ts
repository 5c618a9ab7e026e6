// Bad --limiter URLs are one readable line, and no message ever shows the URL's password.
import { describe, expect, it } from 'vitest';
import { UnreachableError, UsageError } from '../errors.js';
import { freePort } from '../../test/support/throwaway-redis.js';
import { createRedisLimiter } from './redis-limiter.js';
import { parseRedisUrl, redactUrl } from './redis-url.js';

describe('createRedisLimiter input', () => {
  it.each([
    ['http://127.0.0.1:6379', /scheme must be redis:\/\//],
    ['redis://', /no host/],
    ['redis://127.0.0.1:99999', /not a URL/],
    ['redis://127.0.0.1:6379/zero', /database must be a number/],
    ['redis://127.0.0.1:6379/0?tls=1', /query strings/],
    ['127.0.0.1:6379', /not a URL/],
  ])('refuses %s with one readable line', async (url, why) => {
    const err = await createRedisLimiter(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(why);
    expect((err as Error).message).not.toContain('\n');
  });

  it('parses host, port, database and credentials', () => {
    expect(parseRedisUrl('redis://ops:p%40ss@cache.internal:6380/3')).toEqual({
      host: 'cache.internal',
      port: 6380,
      db: 3,
      username: 'ops',
      password: 'p@ss',
      tls: false,
      display: 'redis://***@cache.internal:6380/3',
    });
    expect(parseRedisUrl('rediss://[::1]')).toMatchObject({ host: '::1', port: 6379, db: 0, tls: true, display: 'rediss://[::1]:6379/0' });
  });

  it('masks credentials even in text that is not a URL', () => {
    expect(redactUrl('redis://u:pa/ss@h:1/0')).toBe('redis://***@h:1/0');
    expect(redactUrl('u:secret@host')).toBe('***@host');
    expect(redactUrl('redis://h:1/0')).toBe('redis://h:1/0');
  });

  it('never shows the password of a bad or unreachable URL', async () => {
    const bad = await createRedisLimiter('redis://ops:s3cr%2Ft@127.0.0.1:6379/x').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UsageError);
    expect((bad as Error).message).not.toMatch(/s3cr/);
    const unparsable = await createRedisLimiter('redis://ops:s3/cr@host:1/0').catch((e: unknown) => e);
    expect((unparsable as Error).message).not.toMatch(/s3|cr@/);
    const port = await freePort();
    const down = await createRedisLimiter(`redis://ops:s3cret@127.0.0.1:${port}/0`, { connectTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(UnreachableError);
    expect((down as Error).message).toBe(`cannot reach Redis at redis://***@127.0.0.1:${port}/0: connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
