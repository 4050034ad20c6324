// Statistical inference for figures and comparisons: intervals of one sample, tests of two (docs/metrics.md#confidence-intervals).
export * from './distributions.js';
export * from './intervals.js';
export * from './tests.js';
export * from './bootstrap-stats.js';
