// The summary's `server` section of a results directory: server_metrics.jsonl + the client summary, the same in run and report.
import type { Summary } from '../metrics/summary-model.js';
import type { ServerSummary } from '../metrics/server-model.js';
import { readServerSamples } from './sample-writer.js';
import { serverSummary } from './server-summary.js';
import type { WindowTracker } from './window.js';

/** Derived from `dir`/server_metrics.jsonl when it holds samples; undefined otherwise (a run without server metrics). */
export function serverSectionOf(dir: string, summary: Summary, windows: WindowTracker): ServerSummary | undefined {
  const samples = readServerSamples(dir);
  if (!samples.length) return undefined;
  const scale = summary.run.sim_time_scale;
  // The embedded simulator speaks vLLM's metric names; its findings name the --sim-* flags, not a real engine's settings.
  const sim = (summary.run as Record<string, unknown>).embedded_server === true;
  return serverSummary(samples, windows.window(summary.phases), summary, typeof scale === 'number' && scale > 0 ? scale : 1, { sim });
}

/** Adds the server section to `summary` (in place) when there is one, keeping the key absent otherwise. */
export function withServerSection(dir: string, summary: Summary, windows: WindowTracker): Summary {
  const server = serverSectionOf(dir, summary, windows);
  if (server) summary.server = server;
  return summary;
}
