import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Two tiers: `npm run test:unit` runs src/ (units next to their code, the inner loop);
    // `npm test` runs both, test/ holding the end-to-end suites over the built CLI.
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every file's line with its duration, also on a terminal, so a slow file shows in any run.
    reporters: [['default', { summary: false }]],
    slowTestThreshold: 1_000,
  },
});
