// itl_ms: the gaps between consecutive token-carrying events, one value per gap (itlMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';
import { TOKEN_GAP_BUCKETS_S } from './buckets.js';

export const itl: MetricDef = {
  id: 'itl_ms',
  label: 'ITL (ms)',
  unit: 'ms',
  of: (r) => r.itl_ms,
  aggregations: ALL_AGGREGATIONS,
  store: 'histogram',
  shown: ['summary', 'terminal', 'report', 'compare', 'sweep', 'slo', 'prometheus'],
  compare: { key: 'itl', label: 'ITL', unit: 'ms', better: 'lower', stats: ['p99'], extraPercentiles: true, sweepSuffix: 'ms' },
  slo: { name: 'itl', op: '<=', why: 'no successful request has an ITL (it needs 2+ output tokens)' },
  prometheus: { name: 'tokenflood_itl_seconds', help: 'Inter-token latencies of measured ok requests, one observation per gap (itl_ms / 1000)', buckets: TOKEN_GAP_BUCKETS_S, divisor: 1000 },
  sweep: { name: 'itl', suffix: 'ms' },
};
