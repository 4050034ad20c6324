// compare, per turn index: TTFT p50 and p99 of baseline and candidate side by side (informational: never a regression, never --fail-on).
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import type { TurnBlock } from '../metrics/sessions.js';

/** One turn index's TTFT in both runs; delta = candidate − baseline, relative = delta / |baseline| (null when missing or 0). */
export interface TurnTtftDelta {
  turn: string;
  baseline_requests: number;
  candidate_requests: number;
  ttft_p50: { baseline: number | null; candidate: number | null; delta: number | null; relative: number | null };
  ttft_p99: { baseline: number | null; candidate: number | null; delta: number | null; relative: number | null };
}

const pair = (b: number | null | undefined, c: number | null | undefined) => {
  const baseline = b ?? null;
  const candidate = c ?? null;
  const delta = baseline !== null && candidate !== null ? candidate - baseline : null;
  return { baseline, candidate, delta, relative: delta !== null && baseline !== 0 ? delta / Math.abs(baseline!) : null };
};

/**
 * The turn indexes either run has (summary.json by_turn), in turn order; undefined when neither has by_turn (runs
 * without sessions, or summaries written before by_turn existed). A turn only one run has shows nulls on the other side.
 */
export function turnTtftDeltas(base: MetricsBlock | undefined, cand: MetricsBlock | undefined): TurnTtftDelta[] | undefined {
  const b = (base as Partial<Summary> | undefined)?.by_turn;
  const c = (cand as Partial<Summary> | undefined)?.by_turn;
  if (!b && !c) return undefined;
  const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(c ?? {})])].sort((x, y) => parseInt(x, 10) - parseInt(y, 10));
  return keys.map((turn) => {
    const bt: TurnBlock | undefined = b?.[turn];
    const ct: TurnBlock | undefined = c?.[turn];
    return {
      turn,
      baseline_requests: bt?.requests ?? 0,
      candidate_requests: ct?.requests ?? 0,
      ttft_p50: pair(bt?.ttft_ms.p50, ct?.ttft_ms.p50),
      ttft_p99: pair(bt?.ttft_ms.p99, ct?.ttft_ms.p99),
    };
  });
}
