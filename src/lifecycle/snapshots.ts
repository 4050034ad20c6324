// Snapshot events on the run clock: one live snapshot per tick, handed to each reporter at the interval it asked for.
import type { LiveAggregator } from '../metrics/live.js';
import type { DriverClock } from '../drivers/driver.js';
import type { Reporter } from '../report/events.js';

export const DEFAULT_SNAPSHOT_MS = 1000;
/** Nobody needs a live view finer than this, and each snapshot costs the measuring thread. */
const MIN_SNAPSHOT_MS = 100;

/** Start emitting snapshots; returns the function that stops them. Nothing runs when no reporter listens. */
export function startSnapshots(reporters: readonly Reporter[], agg: LiveAggregator, clock: DriverClock, virtual: boolean): () => void {
  const listeners = reporters.filter((r) => r.snapshot);
  if (listeners.length === 0) return () => {};
  const every = listeners.map((r) => Math.max(MIN_SNAPSHOT_MS, r.snapshotEveryMs ?? DEFAULT_SNAPSHOT_MS));
  const tick = Math.min(...every);
  const last = listeners.map(() => 0);
  const emit = (): void => {
    const t = clock.now();
    const s = agg.snapshot();
    listeners.forEach((r, i) => {
      // Half a tick of slack: a timer that fires a little early still counts as on time.
      if (t - last[i] < every[i] - tick / 2) return;
      last[i] = t;
      r.snapshot!(s);
    });
  };
  if (!virtual) {
    const timer = setInterval(emit, tick);
    timer.unref();
    return () => clearInterval(timer);
  }
  // On a virtual clock a timer is an event on that clock: it fires in order with the requests.
  const stop = new AbortController();
  void (async () => {
    for (let at = tick; !stop.signal.aborted; at += tick) {
      await clock.sleepUntil(at, stop.signal);
      if (!stop.signal.aborted) emit();
    }
  })();
  return () => stop.abort();
}
