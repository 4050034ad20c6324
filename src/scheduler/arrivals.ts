// Open-loop arrival schedules from the rate and arrival process, generated lazily for runs.
import type { Rng } from '../util/rng.js';

export type ArrivalKind = 'constant' | 'poisson' | 'gamma';

/**
 * Inter-arrival gap in ms with mean 1000/rate. constant: exactly the mean; poisson: exponential;
 * gamma: Gamma(shape k, scale mean/k), so k = 1 is poisson, k < 1 burstier, k > 1 smoother (vLLM's burstiness).
 */
export function gapMs(kind: ArrivalKind, ratePerS: number, burstiness: number, rng: Rng): number {
  const mean = 1000 / ratePerS;
  if (kind === 'constant') return mean;
  if (kind === 'poisson') return rng.exponential(mean);
  return rng.gamma(burstiness, mean / burstiness);
}

/**
 * Send times (ms from the start of sending) for `count` requests, or for as many as fit in `untilMs`.
 * The first request goes at 0.
 */
export function arrivalSchedule(
  kind: ArrivalKind,
  ratePerS: number,
  burstiness: number,
  rng: Rng,
  limit: { count?: number; untilMs?: number },
): number[] {
  const out: number[] = [];
  let t = 0;
  const max = limit.count ?? Number.POSITIVE_INFINITY;
  const until = limit.untilMs ?? Number.POSITIVE_INFINITY;
  if (!Number.isFinite(max) && !Number.isFinite(until)) throw new Error('arrivalSchedule needs a count or a time limit');
  while (out.length < max && t < until) {
    out.push(t);
    t += gapMs(kind, ratePerS, burstiness, rng);
  }
  return out;
}

/**
 * Open-loop send times, generated one at a time (memory does not grow with --requests or --duration): the first
 * `warmup` arrivals, then the measured ones until `requests` of them were scheduled or `durationMs` has passed
 * since the first measured one (whichever comes first). One generator for the whole schedule, so warmup and
 * measured phases follow the same process.
 */
export function* openLoopArrivals(
  kind: ArrivalKind,
  ratePerS: number | (() => number),
  burstiness: number,
  rng: Rng,
  o: { warmup: number; requests?: number; durationMs?: number },
): Generator<number, void, undefined> {
  if (o.requests === undefined && o.durationMs === undefined) throw new Error('openLoopSchedule needs requests or a duration');
  let t = 0;
  let n = 0;
  let firstMeasured = 0;
  // A live rate (LoadControl) is read for each gap: a change applies from the arrival after the next one.
  const rate = typeof ratePerS === 'number' ? () => ratePerS : ratePerS;
  for (;;) {
    const measured = n - o.warmup;
    if (o.requests !== undefined && measured >= o.requests) return;
    if (o.durationMs !== undefined && measured > 0 && t - firstMeasured >= o.durationMs) return;
    if (n === o.warmup) firstMeasured = t;
    yield t;
    n++;
    t += gapMs(kind, rate(), burstiness, rng);
  }
}

/** The whole open-loop schedule as an array (tests and small schedules; the run itself streams openLoopArrivals). */
export function openLoopSchedule(
  kind: ArrivalKind,
  ratePerS: number,
  burstiness: number,
  rng: Rng,
  o: { warmup: number; requests?: number; durationMs?: number },
): number[] {
  return Array.from(openLoopArrivals(kind, ratePerS, burstiness, rng, o));
}
