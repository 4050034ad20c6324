// tpot_ms = (last token event − first token event) / (output_tokens − 1), streamed with 2+ token events (tpotMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';
import { TOKEN_GAP_BUCKETS_S } from './buckets.js';

export const tpot: MetricDef = {
  id: 'tpot_ms',
  label: 'TPOT (ms)',
  unit: 'ms',
  of: (r) => r.tpot_ms,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'compare', 'sweep', 'slo', 'prometheus'],
  compare: { key: 'tpot', label: 'TPOT', unit: 'ms', better: 'lower', stats: ['p50', 'p99'], extraPercentiles: true, sweepSuffix: 'ms' },
  slo: { name: 'tpot', op: '<=', why: 'no successful request has a TPOT (it needs 2+ output tokens)' },
  prometheus: { name: 'tokenflood_tpot_seconds', help: 'Time per output token after the first of measured ok requests (tpot_ms / 1000)', buckets: TOKEN_GAP_BUCKETS_S, divisor: 1000 },
  sweep: { name: 'tpot', suffix: 'ms' },
};
