// cached_tokens: prompt tokens the server answered from its prefix cache (server usage; 0 when it does not say).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const cachedTokens: MetricDef = {
  id: 'cached_tokens',
  label: 'cached tokens',
  unit: 'tokens',
  of: (r) => r.cached_tokens,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report'],
};
