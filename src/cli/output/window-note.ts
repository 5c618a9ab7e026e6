// The one stderr line for a listing that stopped at the plan's data window: the user asked for
// everything, so this is information (what "everything" means on their plan), not a warning.
import type { WindowEnd } from '../../client/types.js';

/** Use for the `msnap: note:` line when a `--all` listing ends at the data window. */
export function windowEndNote(end: WindowEnd): string {
  if (end.plan !== undefined && end.cap !== undefined && end.marketType !== undefined) {
    const upgrade = end.plan === 'pro' || end.plan === 'enterprise' ? '' : ' (upgrade to Pro for the full history)';
    return `${end.plan} plan: only the most recent ${end.cap.toLocaleString('en-US')} ${end.marketType} markets are listed${upgrade}`;
  }
  return `the listing stops at your plan's data window: ${end.message}`;
}
