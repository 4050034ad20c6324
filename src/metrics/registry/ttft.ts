// ttft_ms: first event carrying non-empty text (reasoning or answer) − send time; non-streaming: = e2e_ms (ttftMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';
import { TTFT_BUCKETS_S } from './buckets.js';

export const ttft: MetricDef = {
  id: 'ttft_ms',
  label: 'TTFT (ms)',
  unit: 'ms',
  of: (r) => r.ttft_ms,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'compare', 'sweep', 'slo', 'stats_csv', 'prometheus'],
  compare: { key: 'ttft', label: 'TTFT', unit: 'ms', better: 'lower', stats: ['p50', 'p99'], extraPercentiles: true, sweepSuffix: 'ms' },
  statsCsv: { name: 'ttft', suffix: '_ms' },
  slo: { name: 'ttft', op: '<=' },
  prometheus: { name: 'tokenflood_ttft_seconds', help: 'Time to first token of measured ok requests (ttft_ms / 1000)', buckets: TTFT_BUCKETS_S, divisor: 1000 },
  sweep: { name: 'ttft', suffix: 'ms' },
};
