import { configDefaults, defineConfig } from 'vitest/config';

// Two projects so the cheap tests don't pay a fresh process each:
// - unit: the pure src/**/*.test.ts files, run in reused workers (isolate: false). None of them changes globals
//   without restoring them in the same test (spies restored, env and PATH put back in finally); a new unit test that
//   does must restore what it changes, or go to the integration project.
// - integration: test/**/*.test.ts, each file in its own fresh process (servers, CLI runs, signals, exit codes).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    execArgv: ['--expose-gc'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // Wall-clock calibration against a real server: a benchmark (npm run bench:calibrate, vitest.calibrate.config.ts).
          exclude: [...configDefaults.exclude, 'test/calibrate-serve.test.ts'],
        },
      },
    ],
  },
});
