import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Wall-clock calibration against a real server: a benchmark (npm run bench:calibrate, vitest.calibrate.config.ts).
    exclude: [...configDefaults.exclude, 'test/calibrate-serve.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    execArgv: ['--expose-gc'],
  },
});
