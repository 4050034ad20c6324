// Ramps and stages (k6's words): the phase of a moment in them; --stages itself is parsed in options.ts.
import type { RequestPhase } from '../metrics/record.js';
import type { Stage } from './options.js';

export { MAX_STAGES, parseStages, rampPlan, stagesMs, type RampInput, type RampPlan, type Stage, type StageUnit } from './options.js';

/** A stage's phase: its target above the previous one is ramp-up, equal is steady, below is ramp-down. */
export function stagePhase(stages: readonly Stage[], i: number): RequestPhase {
  const prev = i > 0 ? stages[i - 1].target : 0;
  const t = stages[i].target;
  return t > prev ? 'ramp-up' : t < prev ? 'ramp-down' : 'steady';
}

/** The phase at `tMs` from the start of the stages (a stage holds [start, end)); after the last stage the level holds: steady. */
export function phaseAt(stages: readonly Stage[], tMs: number): RequestPhase {
  let end = 0;
  for (let i = 0; i < stages.length; i++) {
    end += stages[i].durationMs;
    if (tMs < end) return stagePhase(stages, i);
  }
  return 'steady';
}

/** run.json `executor.stages`: k6's stage list in seconds. */
export const describeStages = (stages: readonly Stage[]): { duration_s: number; target: number }[] =>
  stages.map((s) => ({ duration_s: s.durationMs / 1000, target: s.target }));
