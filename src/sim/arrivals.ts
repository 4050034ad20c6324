// Precomputed arrival times for open-loop (rate) runs: constant, Poisson or gamma inter-arrival gaps.
import type { Rng } from '../util/rng.js';

export type ArrivalKind = 'constant' | 'poisson' | 'gamma';

/**
 * Arrival time of each of `count` requests, ms from the start. Mean gap = 1000 / rate.
 * gamma: shape = burstiness, scale = mean / burstiness (burstiness 1 = Poisson, < 1 burstier), as vLLM's benchmark.
 */
export function arrivalTimesMs(count: number, ratePerSec: number, kind: ArrivalKind, rng: Rng, burstiness = 1): number[] {
  const mean = 1000 / ratePerSec;
  const out = new Array<number>(count);
  let t = 0;
  for (let i = 0; i < count; i++) {
    out[i] = t;
    t += kind === 'constant' ? mean : kind === 'poisson' ? rng.exponential(mean) : rng.gamma(burstiness, mean / burstiness);
  }
  return out;
}
