// Warnings that qualify a whole sweep's numbers, shared by the terminal, JSON readers and HTML reporters.
import type { SweepDoc } from './sweep-model.js';

/** Warnings that qualify every number of the sweep: scaled simulated time, client-bound levels, an early end. */
export function sweepWarnings(doc: SweepDoc): string[] {
  const out: string[] = [];
  const scale = doc.sim_time_scale;
  if (typeof scale === 'number' && scale !== 1) out.push(`simulated server running ${scale}x faster than real time: latencies and throughputs are scaled, not real`);
  const cb = doc.points.filter((r) => r.client_bound === true);
  if (cb.length) out.push(`CLIENT-BOUND at ${cb.map((r) => r.name).join(', ')}: the load generator was the bottleneck there, so those levels may show the client's limit, not the server's; findings drawn from them are marked`);
  if (doc.failure) out.push(`INCOMPLETE: ${doc.failure}; the remaining points are marked failed and nothing is recommended`);
  if (doc.interrupted) out.push('INTERRUPTED: the sweep was stopped before every point ran; nothing is recommended');
  return out;
}
