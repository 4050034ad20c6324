// join_wait_ms: ms a session turn waited for its subagents to finish (the join) before it was sent; trace replay only (record field).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const joinWait: MetricDef = {
  id: 'join_wait_ms',
  label: 'join wait (ms)',
  unit: 'ms',
  of: (r) => r.join_wait_ms ?? null,
  aggregations: ALL_AGGREGATIONS,
  over: 'all',
  shown: ['summary', 'terminal', 'report'],
};
