// schedule_lag_ms = sent_at_ms − scheduled_at_ms: how late the client sent the request, every measured request (scheduleLagMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const scheduleLag: MetricDef = {
  id: 'schedule_lag_ms',
  label: 'schedule lag (ms)',
  unit: 'ms',
  of: (r) => r.schedule_lag_ms,
  aggregations: ALL_AGGREGATIONS,
  over: 'all',
  shown: ['summary', 'terminal', 'report'],
};
