// The keyless health routes for load balancers: their own allowance per address, apart from
// requests with a failed key, and HEAD as well as GET.
import { describe, expect, it } from 'vitest';
import { ANONYMOUS_CONFIG, HEALTH_CONFIG } from './rate-limit.js';
import { inOrder, testApp } from './test-support/test-app.js';

describe('health probes', () => {
  it('a probe every second for ten minutes never meets a 429, after failed keys spent the address\'s own limit', async () => {
    const { get, clock } = await testApp({ step: 0 });
    const failed = await inOrder(ANONYMOUS_CONFIG.burst + 1, () => get('/api/v1/markets', 'not-a-key'));
    expect(failed.at(-1)!.status).toBe(429);
    const probes = await inOrder(600, async (i) => {
      clock.t += 1000;
      return get(i % 2 ? '/health' : '/v4/health');
    });
    expect(probes.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);
    expect(probes[0]!.headers['X-RateLimit-Limit']).toBe(String(HEALTH_CONFIG.perMinute));
    // Failed keys are still limited: the health allowance is not theirs.
    const after = await inOrder(ANONYMOUS_CONFIG.perMinute + 1, () => get('/api/v1/markets', 'not-a-key'));
    expect(after.at(-1)!.status).toBe(429);
  });

  it('a flood of probes is still limited', async () => {
    const { get } = await testApp({ step: 0 });
    const flood = await inOrder(HEALTH_CONFIG.burst + 1, () => get('/health'));
    expect(flood.slice(0, -1).every((r) => r.status === 200)).toBe(true);
    expect(flood.at(-1)!.status).toBe(429);
  });

  it('answers HEAD on the health routes only; other routes stay GET-only', async () => {
    const { call } = await testApp();
    for (const path of ['/health', '/v4/health']) {
      const head = await call('HEAD', path);
      expect(head.status).toBe(200);
      expect(head.headers['Content-Type']).toMatch(/json/);
    }
    const post = await call('POST', '/health');
    expect(post.status).toBe(405);
    expect(post.headers.Allow).toBe('GET, HEAD');
    const keyed = await call('HEAD', '/api/v1/markets', { 'X-API-Key': 'whatever' });
    expect(keyed.status).not.toBe(200);
  });
});
