// ttft_from_scheduled_ms = ttft_ms + schedule_lag_ms: first text event − scheduled send time (ttftFromScheduledMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const ttftFromScheduled: MetricDef = {
  id: 'ttft_from_scheduled_ms',
  label: 'TTFT from schedule (ms)',
  unit: 'ms',
  of: (r) => r.ttft_from_scheduled_ms,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report'],
};
