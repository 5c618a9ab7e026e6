// Which dialect a run speaks: `--api auto` asks the public /v4/health (no key, not charged to the
// key) and takes the dialect whose pages need the fewest requests; a v1 the service has retired
// (410 Gone) hands the run to v4.
import { HttpError, MsnapError, UnreachableError } from '../errors.js';
import type { Dialect, DialectLimits } from './dialects/dialect.js';
import { v1 } from './dialects/v1.js';
import { readV4Health, v4 } from './dialects/v4.js';
import type { Transport } from './transport/transport.js';
import type { Health } from './types.js';

/** What `auto` decided, with the probe's answer so the first health() or limits() costs nothing more. */
export interface AutoChoice {
  dialect: Dialect;
  health?: Health;
  limits?: DialectLimits;
}

/**
 * Use for `--api auto`. msnap serve's /v4/health declares each dialect's largest snapshot page
 * (its v1 pages hold 10x v4's, for the same bytes): take the largest, v4 on a tie. The hosted
 * service declares none: v4. No public v4 health: v4 when plan-limits answers, else v1.
 */
export async function chooseAuto(t: Transport): Promise<AutoChoice> {
  try {
    const { health, snapshotsPageMax } = await readV4Health(t);
    const v1Max = snapshotsPageMax?.['v1'];
    const v4Max = snapshotsPageMax?.['v4'];
    return { dialect: v1Max !== undefined && v4Max !== undefined && v1Max > v4Max ? v1 : v4, health };
  } catch (err) {
    if (err instanceof UnreachableError || !(err instanceof MsnapError)) throw err;
  }
  try {
    return { dialect: v4, limits: await v4.limits(t) };
  } catch (err) {
    if (err instanceof UnreachableError || !(err instanceof MsnapError)) throw err;
    return { dialect: v1 };
  }
}

/** True when `err` is a v1 request the service answered 410 Gone: v1 is retired there, v4 takes over. */
export function v1Gone(d: Dialect, err: unknown): boolean {
  return d.name === 'v1' && err instanceof HttpError && err.status === 410;
}
