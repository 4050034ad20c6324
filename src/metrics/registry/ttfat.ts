// ttfat_ms: first event carrying non-empty answer text (not reasoning) − send time; non-streaming: = e2e_ms (ttfatMs, derive.ts).
import { ALL_AGGREGATIONS, type MetricDef } from './metric-def.js';

export const ttfat: MetricDef = {
  id: 'ttfat_ms',
  label: 'TTFAT (ms)',
  unit: 'ms',
  of: (r) => r.ttfat_ms,
  aggregations: ALL_AGGREGATIONS,
  shown: ['summary', 'terminal', 'report', 'slo'],
  slo: { name: 'ttfat', op: '<=' },
};
