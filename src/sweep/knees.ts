// Knees of one sweep slice by Kneedle: where output throughput levels off and where each p99 latency takes off.
import type { SweepRow } from '../report/sweep-model.js';

/** Minimum knee strength: a bend smaller than this is within noise, so no knee is reported. */
export const MIN_KNEE_STRENGTH = 0.1;

/** A latency curve bends only if it at least doubles from the bend to the highest level (flat, noisy TPOTs do not bend). */
export const MIN_LATENCY_GROWTH = 2;

export type KneeMetric = 'output_throughput' | 'ttft_p99_ms' | 'tpot_p99_ms' | 'e2e_p99_ms';

/** Plain words for each knee metric, as the statements use them. */
export const KNEE_METRIC_WORDS: Record<KneeMetric, string> = {
  output_throughput: 'output throughput levelling off',
  ttft_p99_ms: 'p99 TTFT taking off',
  tpot_p99_ms: 'p99 TPOT taking off',
  e2e_p99_ms: 'p99 E2E taking off',
};

/**
 * Kneedle (Satopää et al., 2011) over log2(load): scale log2(load) and y to [0, 1] and take the inner level farthest
 * from the straight line joining the first and last level — above it for a concave (saturating) curve, below it for a
 * convex (exploding) one. Returns null with fewer than 3 levels, a flat curve, or a bend under MIN_KNEE_STRENGTH.
 */
export function kneedle(points: readonly { load: number; y: number }[], shape: 'concave' | 'convex'): { load: number; strength: number } | null {
  const pts = [...points].filter((p) => p.load > 0 && Number.isFinite(p.y)).sort((a, b) => a.load - b.load);
  if (pts.length < 3) return null;
  const xs = pts.map((p) => Math.log2(p.load));
  const ys = pts.map((p) => p.y);
  const x0 = xs[0];
  const xr = xs[xs.length - 1] - x0;
  const ymin = Math.min(...ys);
  const yr = Math.max(...ys) - ymin;
  if (xr <= 0 || yr <= 0) return null;
  const yFirst = (ys[0] - ymin) / yr;
  const yLast = (ys[ys.length - 1] - ymin) / yr;
  const sign = shape === 'concave' ? 1 : -1;
  let best = -1;
  let bestD = -Infinity;
  for (let i = 1; i < pts.length - 1; i++) {
    const xn = (xs[i] - x0) / xr;
    const d = sign * ((ys[i] - ymin) / yr - (yFirst + (yLast - yFirst) * xn));
    if (d > bestD) {
      bestD = d;
      best = i;
    }
  }
  if (best < 0 || bestD < MIN_KNEE_STRENGTH) return null;
  return { load: pts[best].load, strength: bestD };
}

export interface MetricKnee {
  metric: KneeMetric;
  load: number;
  strength: number;
}

/**
 * One knee per metric that bends: output throughput (concave: the first level of the plateau) and the p99 TTFT, TPOT
 * and E2E curves (convex: the last level before latency takes off; only when the highest level's value is at least
 * MIN_LATENCY_GROWTH times the value at the bend). Sorted by load; throughput first among equals.
 */
export function metricKnees(rows: readonly SweepRow[]): MetricKnee[] {
  const out: MetricKnee[] = [];
  const t = kneedle(rows.map((r) => ({ load: r.load, y: r.output_throughput })), 'concave');
  if (t) out.push({ metric: 'output_throughput', ...t });
  for (const metric of ['ttft_p99_ms', 'tpot_p99_ms', 'e2e_p99_ms'] as const) {
    const pts = rows.filter((r) => r[metric] !== null).sort((a, b) => a.load - b.load).map((r) => ({ load: r.load, y: r[metric] as number }));
    if (pts.length < 3) continue;
    const k = pts[pts.length - 1].y > pts[0].y ? kneedle(pts, 'convex') : null;
    const atK = k && pts.find((p) => p.load === k.load);
    if (k && atK && atK.y > 0 && pts[pts.length - 1].y >= MIN_LATENCY_GROWTH * atK.y) out.push({ metric, ...k });
  }
  return out.sort((a, b) => a.load - b.load);
}
