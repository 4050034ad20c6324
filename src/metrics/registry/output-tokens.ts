// output_tokens: generated tokens of the request, reasoning included (server usage, else counted; docs/metrics.md).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const outputTokens: MetricDef = {
  id: 'output_tokens',
  label: 'output tokens',
  unit: 'tokens',
  of: (r) => r.output_tokens,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report'],
};
