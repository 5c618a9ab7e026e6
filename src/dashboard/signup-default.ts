// The sign-up allowance's default, apart from the limiter code that enforces it: `serve --help`
// and the flag parser read it at every CLI start, which must not load the rate limiters.

/** Dashboard sign-ups one client address may make per day unless `--signups-per-day` says otherwise. */
export const DEFAULT_SIGNUPS_PER_DAY = 5;
