import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, NotFoundError, RateLimitedError, UnreachableError } from '../errors.js';
import { getSource, getSourceJson, withDispatcher } from './source-get.js';
import { FAST_RETRY, localHttp, sendJson, type LocalHttp } from './test-support/local-http.js';

let server: LocalHttp | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const get = (url: string, extra = {}) => withDispatcher({ ...FAST_RETRY, ...extra }, (o) => getSource(url, o));

describe('getSource', () => {
  it('retries a 500 and a 429 and answers with the body that follows', async () => {
    let n = 0;
    const waits: number[] = [];
    server = await localHttp((_req, res) => {
      n++;
      if (n === 1) return sendJson(res, { error: 'boom' }, 500);
      if (n === 2) {
        res.writeHead(429, { 'retry-after': '2' });
        return res.end();
      }
      sendJson(res, [1, 2]);
    });
    const body = await withDispatcher({ ...FAST_RETRY, sleep: async (ms) => void waits.push(ms) }, (o) => getSourceJson(`${server!.base}/x`, o));
    expect(body).toEqual([1, 2]);
    expect(server.paths).toEqual(['/x', '/x', '/x']);
    // The 429 waits at least its Retry-After; the 500 a jittered backoff under the first cap.
    expect(waits[0]).toBeLessThan(250);
    expect(waits[1]).toBeGreaterThanOrEqual(2000);
  });

  it('never retries a 404 or a 400, and names the URL', async () => {
    server = await localHttp((req, res) => sendJson(res, { message: 'no' }, req.url === '/missing' ? 404 : 400));
    const e404 = await get(`${server.base}/missing`).catch((e: unknown) => e);
    expect(e404).toBeInstanceOf(NotFoundError);
    expect((e404 as Error).message).toBe(`${server.base}/missing answered 404 Not Found`);
    const e400 = await get(`${server.base}/bad`).catch((e: unknown) => e);
    expect(e400).toBeInstanceOf(HttpError);
    expect((e400 as HttpError).status).toBe(400);
    expect((e400 as Error).message).toBe(`${server.base}/bad answered 400: {"message":"no"}`);
    expect(server.paths).toEqual(['/missing', '/bad']);
  });

  it('gives up after its retries: a 5xx as an HttpError, a 429 as RateLimitedError', async () => {
    server = await localHttp((req, res) => sendJson(res, {}, req.url === '/busy' ? 429 : 503));
    const e503 = await get(`${server.base}/down`, { maxRetries: 2 }).catch((e: unknown) => e);
    expect(e503).toBeInstanceOf(HttpError);
    expect((e503 as Error).message).toBe(`${server.base}/down answered 503 after 3 tries: {}`);
    expect(await get(`${server.base}/busy`, { maxRetries: 1 }).catch((e: unknown) => e)).toBeInstanceOf(RateLimitedError);
    expect(server.paths).toHaveLength(5);
  });

  it('says a source that stays unreachable cannot be reached, naming the URL', async () => {
    const closed = await localHttp(() => {});
    await closed.close();
    const url = `${closed.base}/events?slug=x`;
    const err = await get(url, { maxRetries: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreachableError);
    expect((err as Error).message).toBe(`cannot reach ${url} (connection refused, 3 tries)`);
  });

  it('calls a 200 that is not JSON what it is', async () => {
    server = await localHttp((_req, res) => res.end('<html>maintenance</html>'));
    const err = await withDispatcher(FAST_RETRY, (o) => getSourceJson(`${server!.base}/`, o)).catch((e: unknown) => e);
    expect((err as Error).message).toBe(`${server.base}/ answered 200, but not with JSON: <html>maintenance</html>`);
  });

  it('stops waiting to retry when the caller aborts', async () => {
    server = await localHttp((_req, res) => {
      res.writeHead(429, { 'retry-after': '5' });
      res.end();
    });
    const abort = new AbortController();
    const pending = withDispatcher({ signal: abort.signal }, (o) => getSource(`${server!.base}/slow`, o));
    await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    const started = Date.now();
    expect(await pending.catch((e: unknown) => (e as Error).name)).toBe('AbortError');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(server.paths).toEqual(['/slow']);
  });
});
