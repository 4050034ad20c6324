// tool_wait_ms: ms a session turn waited on its predecessor's mocked tool call before it was sent; trace replay only (record field).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const toolWait: MetricDef = {
  id: 'tool_wait_ms',
  label: 'tool wait (ms)',
  unit: 'ms',
  of: (r) => r.tool_wait_ms ?? null,
  aggregations: ALL_AGGREGATIONS,
  over: 'all',
  shown: ['summary', 'terminal', 'report'],
};
