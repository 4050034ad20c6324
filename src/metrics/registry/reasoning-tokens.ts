// reasoning_tokens: the output tokens that were reasoning (server usage, else counted over the reasoning text).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const reasoningTokens: MetricDef = {
  id: 'reasoning_tokens',
  label: 'reasoning tokens',
  unit: 'tokens',
  of: (r) => r.reasoning_tokens,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report'],
};
