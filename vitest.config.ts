import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two projects so the cheap tests don't pay a fresh process each:
// - unit: the pure src/**/*.test.ts files, run in reused workers (isolate: false). None of them changes globals
//   without restoring them in the same test (spies restored, env and PATH put back in finally); a new unit test that
//   does must restore what it changes, or go to the integration project.
// - integration: test/**/*.test.ts, each file in its own fresh process (servers, CLI runs, signals, exit codes).
//   These files mostly wait (on loopback servers, child processes, paced schedules): the suite used about a third of
//   one core over its run. Vitest's default (cores - 1 workers) ran them one at a time on 2 cores, so this project
//   runs at least 4 files at once.
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
          maxWorkers: Math.max(4, availableParallelism() - 1),
          include: ['test/**/*.test.ts'],
          // Wall-clock calibration against a real server: a benchmark (npm run bench:calibrate, vitest.calibrate.config.ts).
          exclude: [...configDefaults.exclude, 'test/calibrate-serve.test.ts'],
        },
      },
    ],
  },
});
