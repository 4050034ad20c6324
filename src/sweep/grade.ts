// Grades of sweep points from their SLO margins: how close the worst SLO metric came to its limit (A … D pass, F fails).
import type { SloCheck } from '../metrics/slo.js';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

/**
 * Upper bounds of the worst SLO ratio (measured / limit for a limit, limit / measured for a floor) per passing grade:
 * A ≤ 0.5, B ≤ 0.75, C ≤ 0.9, D ≤ 1. A point that fails an SLO or the error threshold is F.
 */
export const GRADE_BOUNDS: readonly (readonly [Grade, number])[] = [
  ['A', 0.5],
  ['B', 0.75],
  ['C', 0.9],
  ['D', 1],
];

/** Grades with "comfortable" SLO margin: every SLO metric at most 75% of its limit. */
export const COMFORTABLE: readonly Grade[] = ['A', 'B'];

/**
 * How much of one SLO's allowance a point used: measured / limit for "<=" checks, limit / measured for ">=" floors
 * (1 = exactly at the limit, above 1 = broken). A zero limit met exactly is 0; null when nothing was measured.
 */
export function sloRatio(c: Pick<SloCheck, 'op' | 'limit' | 'actual'>): number | null {
  if (c.actual === null) return null;
  if (c.op === '<=') return c.limit > 0 ? c.actual / c.limit : c.actual > 0 ? Infinity : 0;
  return c.actual > 0 ? c.limit / c.actual : c.limit > 0 ? Infinity : 0;
}

/** The check that used most of its allowance, with that ratio (undefined without checks). */
export function worstSlo(checks: readonly Pick<SloCheck, 'name' | 'op' | 'limit' | 'actual' | 'passed'>[]): { metric: string; ratio: number | null } | undefined {
  let worst: { metric: string; ratio: number | null } | undefined;
  for (const c of checks) {
    // A check with nothing measured (no TTFT at all) failed outright: it is the worst.
    const ratio = sloRatio(c) ?? (c.passed ? 0 : Infinity);
    if (!worst || ratio > (worst.ratio ?? -1)) worst = { metric: c.name, ratio };
  }
  return worst && { metric: worst.metric, ratio: worst.ratio !== null && Number.isFinite(worst.ratio) ? worst.ratio : null };
}

export interface GradeInput {
  status?: 'done' | 'failed';
  ok: number;
  error_rate: number;
  slo_passed: boolean | null;
  /** Worst SLO ratio (see worstSlo); null when it is unbounded (nothing measured, a zero limit broken). */
  slo_worst_ratio?: number | null;
}

/**
 * The grade of one point: F when it failed an SLO, exceeded the error threshold or had no successful request;
 * otherwise the first grade whose bound holds the worst SLO ratio. Null without SLOs or for a point that did not run.
 */
export function gradePoint(r: GradeInput, maxErrorRate: number): Grade | null {
  if (r.slo_passed === null || r.status === 'failed') return null;
  if (!r.slo_passed || r.ok === 0 || r.error_rate > maxErrorRate) return 'F';
  const u = r.slo_worst_ratio;
  if (u === null || u === undefined) return 'D';
  for (const [g, bound] of GRADE_BOUNDS) if (u <= bound) return g;
  return 'F';
}
