// v4 error bodies (`{error, code, request_id, details}`) into the same MsnapErrors, and so the same
// exit codes, as v1's: the `code` decides where v4's status differs from v1's (402 for the data
// window) or where only the hosted service sends it (the 403 plan codes).
import { WindowError, type MsnapError } from '../../errors.js';
import { errorForStatus } from '../error-map.js';
import { redactKey } from '../mask-key.js';

/** The 403 codes the hosted service sends for plan limits msnap serve does not model. */
const PLAN_CODES: Readonly<Record<string, string>> = {
  HISTORY_LIMIT_EXCEEDED: 'your plan keeps a shorter history: upgrade for older data',
  COIN_NOT_IN_PLAN: 'your plan does not include this coin: upgrade, or ask for one it includes',
  ENDPOINT_NOT_IN_PLAN: 'your plan does not include this endpoint: upgrade to use it',
};

function field(o: unknown, name: string): unknown {
  return o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[name] : undefined;
}

/** Use as the Transport's error mapper for every v4 request. */
export function v4ErrorFor(status: number, body: unknown, url: string, key: string | undefined): MsnapError {
  const code = field(body, 'code');
  const sentence = field(body, 'error');
  const said = typeof sentence === 'string' && sentence.trim() !== '' ? redactKey(sentence, key) : '';
  if (code === 'PLAN_UPGRADE_REQUIRED' || status === 402) {
    const plan = field(field(body, 'details'), 'current_plan');
    const tier = typeof plan === 'string' ? plan : undefined;
    const hint = tier && tier !== 'pro' && tier !== 'enterprise'
      ? `your plan is ${tier}: upgrade to Pro for the full history`
      : 'upgrade to Pro for the full history';
    return new WindowError(said || 'outside your plan\'s data window (402 Payment Required)', tier, hint);
  }
  if (typeof code === 'string' && code in PLAN_CODES) {
    return new WindowError(said || `not in your plan (${code})`, undefined, PLAN_CODES[code]);
  }
  return errorForStatus(status, body, url, key);
}
