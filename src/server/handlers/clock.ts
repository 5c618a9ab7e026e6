// GET /v1/clock (msnap's own): the instant the server's answers are computed at, and how it runs.
import type { ClockReading } from '../../replay/server-clock.js';
import { noQuery, type CoreRoute } from '../route.js';

/** `{ now, speed, mode, until }`: a replaying server's clock, or the wall clock. */
export const clockCore: CoreRoute<undefined, ClockReading> = {
  query: noQuery,
  handle: ({ clock }) => clock.read(),
};
