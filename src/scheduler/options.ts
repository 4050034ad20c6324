// The scheduler's options, composed into the run config by config/: --stages parsed, --ramp-up/--ramp-down as stages (k6's words), --shard's spec.
import { parseDurationS } from '../util/parse.js';
import { MAX_TIMER_S } from '../util/timer.js';

/** One stage: over `durationMs` the target moves linearly from the previous stage's target (0 before the first) to `target`. */
export interface Stage {
  durationMs: number;
  target: number;
}

/** What the stage targets count: VUs (closed loop, ramping-vus) or requests per second (open loop, ramping-arrival-rate). */
export type StageUnit = 'vus' | 'rate';

export interface RampPlan {
  of: StageUnit;
  stages: readonly Stage[];
}

/** The most stages a --stages list may hold: far more than a load shape needs, few enough to scan per request. */
export const MAX_STAGES = 100;

const STAGE = /^\s*([^:]+?)\s*:\s*(\d+(?:\.\d+)?)\s*(\/s)?\s*$/;

/**
 * Parse `30s:100,2m:100,30s:0` (targets are VUs) or `30s:20/s,2m:20/s,30s:0` (targets are requests/s; every target
 * but 0 says /s). Throws an Error whose message names the stage that is wrong (the caller adds the flag name).
 */
export function parseStages(spec: string, limits: { vus: number; ratePerS: number }): RampPlan {
  const parts = spec.split(',');
  if (parts.length > MAX_STAGES) throw new Error(`at most ${MAX_STAGES} stages (got ${parts.length})`);
  const stages: Stage[] = [];
  let rate = 0;
  let vus = 0;
  parts.forEach((p, i) => {
    const m = STAGE.exec(p);
    const d = m ? parseDurationS(m[1]) : NaN;
    if (!m || !Number.isFinite(d)) throw new Error(`stage ${i + 1} "${p.trim()}": expected duration:target, e.g. 30s:100 (VUs) or 30s:20/s (requests per second)`);
    const target = Number(m[2]);
    if (m[3]) rate++;
    else if (target !== 0) vus++;
    stages.push({ durationMs: d * 1000, target });
  });
  if (rate > 0 && vus > 0) throw new Error('mixes VU targets (30s:100) and rate targets (30s:20/s): write every target of a rate ramp with /s');
  const of: StageUnit = rate > 0 ? 'rate' : 'vus';
  const max = Math.max(...stages.map((s) => s.target));
  const totalS = stages.reduce((a, s) => a + s.durationMs, 0) / 1000;
  if (max <= 0) throw new Error('every target is 0: nothing would be sent');
  if (totalS <= 0) throw new Error('the stages last 0 s in all');
  if (totalS > MAX_TIMER_S) throw new Error(`the stages must last at most 24.8 days in all (got ${totalS} s)`);
  if (of === 'vus') {
    const frac = stages.findIndex((s) => !Number.isInteger(s.target));
    if (frac >= 0) throw new Error(`stage ${frac + 1}: a VU target is a whole number (write /s after it for requests per second)`);
    if (max > limits.vus) throw new Error(`at most ${limits.vus.toLocaleString('en-US')} VUs`);
  } else if (max > limits.ratePerS) throw new Error(`at most ${limits.ratePerS.toLocaleString('en-US')} requests per second`);
  return { of, stages };
}

/** Sum of the stage durations in ms. */
export const stagesMs = (stages: readonly Stage[]): number => stages.reduce((a, s) => a + s.durationMs, 0);

/** The options a ramp plan is built from: config keys in seconds (validated already). */
export interface RampInput {
  rampUp?: number;
  rampDown?: number;
  stages?: string;
  duration?: number;
  concurrency?: number;
  rate?: number;
}

/**
 * The run's ramps as stages, or undefined for a constant load. --stages as given; --ramp-up R / --ramp-down F at
 * level L (--rate, else --concurrency) within --duration D: R:L, (D − R − F):L, F:0; without --duration only R:L,
 * and the level then holds until --requests. Zero-length ramps are left out.
 */
export function rampPlan(c: RampInput, limits = { vus: Infinity, ratePerS: Infinity }): RampPlan | undefined {
  if (c.stages !== undefined) return parseStages(c.stages, limits);
  if (c.rampUp === undefined && c.rampDown === undefined) return undefined;
  const of: StageUnit = c.rate !== undefined ? 'rate' : 'vus';
  const level = c.rate ?? c.concurrency ?? 1;
  const up = (c.rampUp ?? 0) * 1000;
  const down = (c.rampDown ?? 0) * 1000;
  const stages: Stage[] = [];
  if (up > 0) stages.push({ durationMs: up, target: level });
  if (c.duration === undefined) return { of, stages };
  const steady = c.duration * 1000 - up - down;
  if (steady > 0) stages.push({ durationMs: steady, target: level });
  if (down > 0) stages.push({ durationMs: down, target: 0 });
  return { of, stages };
}

/** Shard `index` (0-based, Kubernetes' JOB_COMPLETION_INDEX) of `count`. */
export interface ShardSpec {
  index: number;
  count: number;
}
