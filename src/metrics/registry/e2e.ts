// e2e_ms = end of response − send time (e2eMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';
import { E2E_BUCKETS_S } from './buckets.js';

export const e2e: MetricDef = {
  id: 'e2e_ms',
  label: 'E2E (ms)',
  unit: 'ms',
  of: (r) => r.e2e_ms,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'compare', 'sweep', 'slo', 'stats_csv', 'prometheus'],
  compare: { key: 'e2e', label: 'E2E', unit: 'ms', better: 'lower', stats: ['p50', 'p99'], extraPercentiles: true, sweepSuffix: 'ms' },
  statsCsv: { name: 'e2e', suffix: '_ms' },
  slo: { name: 'e2e', op: '<=' },
  prometheus: { name: 'tokenflood_e2e_seconds', help: 'End-to-end latency of measured ok requests (e2e_ms / 1000)', buckets: E2E_BUCKETS_S, divisor: 1000 },
  sweep: { name: 'e2e', suffix: 'ms' },
};
