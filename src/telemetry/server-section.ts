// The summary's `server` section of a results directory: server_metrics.jsonl + the client summary, the same in run and report.
import type { Summary } from '../metrics/summary-model.js';
import type { ServerSummary } from '../metrics/server-model.js';
import { forEachServerSample } from './sample-writer.js';
import { ServerSummaryBuilder } from './server-summary.js';
import type { WindowTracker } from './window.js';
import type { ServerSample } from './normalize.js';

/** Derived from `dir`/server_metrics.jsonl when it holds samples; undefined otherwise (a run without server metrics). */
export function serverSectionOf(dir: string, summary: Summary, windows: WindowTracker, also?: (s: ServerSample) => void): ServerSummary | undefined {
  const scale = summary.run.sim_time_scale;
  // The simulator speaks vLLM's metric names; its findings name the simulator's flags, not a real engine's settings.
  // Embedded, or a standalone `tokenflood serve` (it answers with x-tokenflood-time-scale, recorded as sim_time_scale).
  const run = summary.run as Record<string, unknown>;
  const sim = run.embedded_server === true || typeof run.sim_time_scale === 'number' || run.simulated === true;
  // Streamed sample by sample: a 24 h run's file is larger than any one string may be.
  const b = new ServerSummaryBuilder(windows.window(summary.phases), typeof scale === 'number' && scale > 0 ? scale : 1, { sim });
  forEachServerSample(dir, also ? (s) => (b.add(s), also(s)) : (s) => b.add(s));
  return b.summary(summary);
}

/**
 * Adds the server section to `summary` (in place) when there is one, keeping the key absent otherwise. `also` sees
 * every sample of the same pass (the lifecycle keeps the report's chart sample so: the file is read once).
 */
export function withServerSection(dir: string, summary: Summary, windows: WindowTracker, also?: (s: ServerSample) => void): Summary {
  const server = serverSectionOf(dir, summary, windows, also);
  if (server) summary.server = server;
  return summary;
}
