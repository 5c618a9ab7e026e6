// The one stderr line for a listing that stopped at the plan's data window: the user asked for
// everything, so this is information (what "everything" means on their plan), not a warning.
import type { WindowEnd } from '../../../client/types.js';

/** Use for the `msnap: note:` line when a `--all` listing ends at the data window. */
export function windowEndNote(end: WindowEnd): string {
  const upgrade = end.plan === 'pro' || end.plan === 'enterprise' ? '' : ' (upgrade to Pro for the full history)';
  const each = end.perCoin ? ' of each coin' : '';
  if (end.plan !== undefined && end.cap !== undefined && end.marketType !== undefined) {
    return `${end.plan} plan: only the most recent ${end.cap.toLocaleString('en-US')} ${end.marketType} markets${each} are listed${upgrade}`;
  }
  if (end.plan !== undefined && end.window !== undefined) {
    const caps = Object.entries(end.window).map(([type, n]) => `${n.toLocaleString('en-US')} ${type}`);
    const list = caps.length > 1 ? `${caps.slice(0, -1).join(', ')} and ${caps.at(-1)}` : caps.join('');
    return `${end.plan} plan: only the most recent ${list} markets${end.perCoin ? ' of each coin' : ''} are listed${upgrade}`;
  }
  return `the listing stops at your plan's data window: ${end.message}`;
}
