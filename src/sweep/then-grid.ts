// sweep --auto --then-grid: after the search of one input/output pair, a grid of loads around the knee it found.
import type { SweepRow, ThenGrid } from '../report/sweep-model.js';
export type { ThenGrid } from '../report/sweep-model.js';
import type { SloSearchReport, AutoSearchReport } from '../report/auto-search-model.js';
import type { LoadMode } from './grid.js';
import { metricKnees } from './knees.js';
import { roundSig } from './rates.js';

/** The grid around the knee, as multiples of its load: below it (headroom) and past it (saturation). */
export const THEN_GRID_FACTORS = [0.5, 0.75, 1, 1.25, 1.5] as const;

/**
 * The knee of one pair: the SLO search's highest passing load; else the throughput knee (Kneedle over the search's
 * levels), else the first latency knee; else the highest acceptable load measured. Null when nothing was acceptable.
 */
export function kneeOf(rows: readonly SweepRow[], search: AutoSearchReport | null | undefined, acceptable: (r: SweepRow) => boolean): Pick<ThenGrid, 'knee' | 'knee_from'> {
  if (search && search.goal === 'slo') {
    const pass = (search as SloSearchReport).bracket[0];
    return pass !== null ? { knee: pass, knee_from: 'slo_search' } : { knee: null, knee_from: null };
  }
  const knees = metricKnees(rows);
  const k = knees.find((x) => x.metric === 'output_throughput') ?? knees[0];
  if (k) return { knee: k.load, knee_from: k.metric };
  const ok = rows.filter(acceptable).sort((a, b) => b.load - a.load)[0];
  return ok ? { knee: ok.load, knee_from: 'highest_acceptable' } : { knee: null, knee_from: null };
}

/** knee × THEN_GRID_FACTORS, rounded for the mode, distinct, in order; concurrency at least 1 and at most `max`. */
export function gridLoads(knee: number, mode: LoadMode, max: number): number[] {
  const loads = THEN_GRID_FACTORS.map((f) => (mode === 'concurrency' ? Math.min(max, Math.max(1, Math.round(knee * f))) : roundSig(knee * f, 3)));
  return [...new Set(loads)].sort((a, b) => a - b);
}
