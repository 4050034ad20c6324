// input_tokens: prompt tokens of the request (server usage, else counted with the tokenizer; docs/metrics.md).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const inputTokens: MetricDef = {
  id: 'input_tokens',
  label: 'input tokens',
  unit: 'tokens',
  of: (r) => r.input_tokens,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report'],
};
