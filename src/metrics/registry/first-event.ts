// first_event_ms: first SSE data event of any kind (heartbeats excluded) − send time: vLLM's client TTFT (firstEventMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const firstEvent: MetricDef = {
  id: 'first_event_ms',
  label: 'first event (ms)',
  unit: 'ms',
  of: (r) => r.first_event_ms,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'slo'],
  slo: { name: 'first_event', op: '<=' },
};
