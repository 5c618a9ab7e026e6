// The dashboard as `msnap serve` runs it: over the server's store and the API app's own
// rate limiter (for "this minute's usage"), with the assets read from the installed package.
import type { App } from '../server/app.js';
import type { Store } from '../store/store.js';
import type { SharedLimiter } from '../ratelimit/shared-limiter.js';
import { loadAssets } from './assets.js';
import { createDashboard, type Dashboard } from './dashboard.js';

/** Use in runServe, once the app exists. */
export function serveDashboard(store: Store, app: App, opts: { now: () => number; signupOpen: boolean; signupsPerDay: number; limiter: SharedLimiter; log: (line: string) => void }): Dashboard {
  return createDashboard({
    store,
    auth: store.accountAuth,
    now: opts.now,
    signupOpen: opts.signupOpen,
    signupsPerDay: opts.signupsPerDay,
    limiter: opts.limiter,
    keyUsage: app.keyUsage,
    assets: loadAssets(),
    log: opts.log,
  });
}
