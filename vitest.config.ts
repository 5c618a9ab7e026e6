import { configDefaults, defineConfig } from 'vitest/config';

/** The recorder's end-to-end suites, timed against a fast clock (see the `realtime` project). */
const REALTIME = ['test/record-e2e.test.ts', 'test/record-pg-e2e.test.ts', 'test/record-pg-outage.test.ts'];

export default defineConfig({
  test: {
    // Two tiers, as projects: `npm run test:unit` runs `unit` (src/: units next to their code, the
    // inner loop); `npm test` runs both, `integration` holding the end-to-end suites over the built
    // CLI (test/) and the store conformance suites, which load real PostgreSQL stores
    // (src/store/conformance: beside the code they check, timed like the end-to-end suites).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every file's line with its duration, also on a terminal, so a slow file shows in any run.
    reporters: [['default', { summary: false }]],
    slowTestThreshold: 1_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], exclude: [...configDefaults.exclude, 'src/store/conformance/**'] } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts', 'src/store/conformance/**/*.test.ts'], exclude: [...configDefaults.exclude, ...REALTIME] } },
      // Run one file at a time, after the rest: their fake Polymarket plays a 25x clock (a 125 ms
      // tick is 5 ms of real time) and their snapshots must equal a reference to the tick, which a
      // throwaway PostgreSQL starting in the next worker could shift.
      { extends: true, test: { name: 'realtime', include: REALTIME } },
    ],
  },
});
