// Open-loop arrival schedules, computed up front from the rate and arrival process.
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
