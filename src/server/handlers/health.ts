// GET /api/health: liveness for an authenticated caller (the public one is each dialect's own line).
import { noQuery, type CoreRoute } from '../route.js';

/** `{ status, time, version }`. */
export const healthCore: CoreRoute<undefined, { status: 'ok'; time: number; version: string }> = {
  query: noQuery,
  handle: ({ now, version }) => ({ status: 'ok', time: now, version }),
};
