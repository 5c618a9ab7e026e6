// GET /api/health: liveness for an authenticated caller.
import { defineRoute, noQuery } from '../route.js';

/** `{ status, time, version }`. */
export const healthRoute = defineRoute({
  pattern: 'health',
  query: noQuery,
  handle: ({ now, version }) => JSON.stringify({ status: 'ok', time: now, version }),
});
