// Open-loop send times whose rate follows stages (ramping-arrival-rate): an inhomogeneous arrival process, generated lazily.
import type { Rng } from '../util/rng.js';
import { gapMs, type ArrivalKind } from './arrivals.js';
import type { Stage } from './stages.js';

/** One stretch of the rate: from `a` to `b` requests/ms over [t0, t0 + d); `l0` = Λ(t0), `l1` = Λ(t0 + d). */
interface Segment {
  t0: number;
  d: number;
  a: number;
  b: number;
  l0: number;
  l1: number;
}

/** The piecewise-linear rate λ(t) of the stages (in requests/ms, from 0 before the first), then the last target held. */
function segments(stages: readonly Stage[]): Segment[] {
  const out: Segment[] = [];
  let t0 = 0;
  let l0 = 0;
  let prev = 0;
  for (const s of stages) {
    const a = prev / 1000;
    const b = s.target / 1000;
    // Λ over a linear stretch: (a + b)/2 × d.
    const l1 = l0 + ((a + b) / 2) * s.durationMs;
    out.push({ t0, d: s.durationMs, a, b, l0, l1 });
    t0 += s.durationMs;
    l0 = l1;
    prev = s.target;
  }
  const last = prev / 1000;
  out.push({ t0, d: Infinity, a: last, b: last, l0, l1: last > 0 ? Infinity : l0 });
  return out;
}

/**
 * The time within segment `g` at which Λ has grown by x: solves a·u + (b − a)·u²/(2d) = x, written
 * u = 2x / (a + √(a² + 2(b − a)x/d)) so that it stays exact when a = 0 or a = b.
 */
function invert(g: Segment, x: number): number {
  if (x <= 0) return g.t0;
  const u = g.a === g.b ? x / g.a : (2 * x) / (g.a + Math.sqrt(Math.max(0, g.a * g.a + (2 * (g.b - g.a) * x) / g.d)));
  return g.t0 + Math.min(Math.max(u, 0), g.d);
}

/**
 * Send times (ms from the start of the stages) of an arrival process whose rate follows the stages, by time
 * rescaling: arrival n goes at the first t with Λ(t) > S_n, where Λ(t) = ∫λ is the expected count by t and
 * S_0 = 0, S_n = S_{n−1} + a gap of mean 1 from --arrival (constant: 1, so arrival n is at Λ⁻¹(n) and a flat stage
 * matches constant-arrival-rate exactly; poisson: exponential; gamma: Gamma(k, 1/k)). Ends after `warmup` +
 * `requests` arrivals, at `durationMs`, or when the rate stays 0 for good. One value at a time: memory does not
 * grow with the schedule.
 */
export function* rampingArrivals(
  kind: ArrivalKind,
  stages: readonly Stage[],
  burstiness: number,
  rng: Rng,
  o: { warmup: number; requests?: number; durationMs?: number },
): Generator<number, void, undefined> {
  const segs = segments(stages);
  let s = 0;
  let i = 0;
  for (let n = 0; ; n++) {
    if (o.requests !== undefined && n >= o.warmup + o.requests) return;
    while (i < segs.length && segs[i].l1 <= s) i++;
    if (i === segs.length) return;
    const t = invert(segs[i], s - segs[i].l0);
    if (o.durationMs !== undefined && t >= o.durationMs) return;
    yield t;
    // A gap of mean 1 in rescaled time: gapMs at 1000/s has mean 1000/1000 = 1.
    s += gapMs(kind, 1000, burstiness, rng);
  }
}
