import { configDefaults, defineConfig } from 'vitest/config';

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
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts', 'src/store/conformance/**/*.test.ts'] } },
    ],
  },
});
