// `npm run bench:calibrate`: calibrate against a real `tokenflood serve` sweep. Wall-clock TTFT on a shared machine
// varies by more than the 5% it checks, so it is a benchmark (reported met or not), not part of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/calibrate-serve.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
