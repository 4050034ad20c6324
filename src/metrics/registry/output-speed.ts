// output_speed_tok_s = 1000 / tpot_ms: the per-request decode speed (outputSpeedTokS, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const outputSpeed: MetricDef = {
  id: 'output_speed_tok_s',
  label: 'output speed (tok/s/req)',
  unit: 'tok/s',
  of: (r) => r.output_speed_tok_s,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'compare', 'slo'],
  compare: { key: 'output_speed', label: 'output speed', unit: 'tok/s/req', better: 'higher', stats: ['p50'], sweepSuffix: 'tok_s' },
  slo: { name: 'output_speed', op: '>=', why: 'no successful request has a decode speed (it needs 2+ output tokens)' },
};
