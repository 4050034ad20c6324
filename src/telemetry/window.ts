// The run-clock window of the summarized requests (first send to last answer), fed record by record like the aggregator.
import type { RequestRecord } from '../metrics/record.js';
import type { PhaseCounts } from '../metrics/summary-model.js';
import type { Window } from './server-summary.js';

export class WindowTracker {
  private steady: Window | null = null;
  private all: Window | null = null;
  add(r: RequestRecord): void {
    if (r.warmup) return;
    // end_ms counts from the send.
    const end = r.sent_at_ms + (r.end_ms ?? 0);
    const grow = (w: Window | null): Window => (w ? { startMs: Math.min(w.startMs, r.sent_at_ms), endMs: Math.max(w.endMs, end) } : { startMs: r.sent_at_ms, endMs: end });
    this.all = grow(this.all);
    if ((r.phase ?? 'steady') === 'steady') this.steady = grow(this.steady);
  }
  /** The window of what the summary's figures cover: the steady requests, or all of them when none was steady. */
  window(phases: PhaseCounts | undefined): Window | null {
    return phases?.summarized === 'all' ? this.all : (this.steady ?? this.all);
  }
}
