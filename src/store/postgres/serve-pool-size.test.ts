// serve's PostgreSQL pool: two connections per core, never under 4 nor over 10.
import { expect, it } from 'vitest';
import { servePoolSize } from './pg-connection.js';

it('sizes serve pool by cores, 4 to 10', () => {
  expect([1, 2, 3, 4, 5, 6, 64].map((cores) => servePoolSize(cores))).toEqual([4, 4, 6, 8, 10, 10, 10]);
  expect(servePoolSize()).toBeGreaterThanOrEqual(4);
});
