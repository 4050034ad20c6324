// The automatic short-only baseline of `run`: whether a run gets one (a mixed-length workload, a run that can take one),
// and its bounded size (docs/metrics.md#short-vs-long-baseline).
import type { ResolvedRun } from '../config/load.js';
import { sendConfig, type RunConfig } from '../config/schema.js';
import { workloadSeed } from '../config/workload.js';
import { runTokenizer } from '../run.js';
import { describeMix, lengthMix, planLengths, UnplannableLengths, type LengthPlan } from '../dataset/length-mix.js';
import { parseTokenCount } from '../metrics/length-bands.js';
import { UsageError } from '../errors.js';

/** What a short-only baseline is: its threshold, why it runs, and its own --requests/--duration when bounded. */
export interface BaselinePlan {
  threshold: number;
  automatic: boolean;
  /** summary.json short_baseline.size_rule. */
  sizeRule: string;
  requests?: number;
  /** Seconds. */
  duration?: number;
}

/** An automatic baseline is this share of the mixed run … */
export const AUTO_SHARE = 0.25;
/** … in requests, at least this many (so Welch's interval has data) and at most this many … */
export const AUTO_MIN_REQUESTS = 20;
export const AUTO_MAX_REQUESTS = 200;
/** … in seconds of a --duration run, at least and at most these; never more than the mixed run itself. */
export const AUTO_MIN_S = 10;
export const AUTO_MAX_S = 120;

/** The planned prompt lengths of the run `c` describes (length-mix.ts); sends nothing. */
export function runLengthPlan(c: RunConfig): LengthPlan {
  return planLengths({ params: sendConfig(c), seed: workloadSeed(c), durationS: c.duration }, runTokenizer(c));
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/**
 * The closed loop's first wave: the first --concurrency measured requests, sent together to an idle server. Their TTFT
 * is a start-up transient, so the comparison leaves them out of both runs (short-slowdown.ts); 0 for an open loop.
 */
export function firstWave(c: RunConfig): number {
  return c.rate === undefined && c.users === undefined && c.replay === undefined ? (c.concurrency ?? 1) : 0;
}

/**
 * The baseline's size for a mixed run of `planned` measured requests and/or `c.duration` seconds: a quarter within
 * bounds, plus the first wave (`wave`) that gives no values, never more than the mixed run.
 */
export function boundedSize(planned: number | undefined, durationS: number | undefined, wave = 0): Pick<BaselinePlan, 'requests' | 'duration' | 'sizeRule'> {
  const rules: string[] = [];
  const out: Pick<BaselinePlan, 'requests' | 'duration'> = {};
  if (planned !== undefined) {
    out.requests = Math.min(planned, clamp(Math.ceil(planned * AUTO_SHARE), AUTO_MIN_REQUESTS, AUTO_MAX_REQUESTS) + wave);
    const plus = wave ? ` plus the first wave of ${wave}` : '';
    rules.push(`a quarter of the mixed run's ${planned} requests, at least ${AUTO_MIN_REQUESTS}, at most ${AUTO_MAX_REQUESTS}${plus}, no more than the mixed run: ${out.requests} requests`);
  }
  if (durationS !== undefined) {
    out.duration = Math.min(durationS, clamp(durationS * AUTO_SHARE, AUTO_MIN_S, AUTO_MAX_S));
    rules.push(`a quarter of the mixed run's ${durationS} s, at least ${AUTO_MIN_S} s, at most ${AUTO_MAX_S} s and no more than the mixed run: ${out.duration} s`);
  }
  return { ...out, sizeRule: rules.join('; ') };
}

/** Why a run cannot take a baseline, or undefined: the automatic one is then skipped with a note (the flag refuses them). */
function cannotRun(c: RunConfig): string | undefined {
  if (c.runs > 1) return '--runs (each run would need its own)';
  if (c.evalUnderLoad) return '--eval-under-load';
  if (c.shard !== undefined || c.startAt !== undefined) return '--shard/--start-at (a shard sees part of the load)';
  if (c.cacheAb) return '--cache-ab (its cold and warm passes are the comparison)';
  if (c.stages !== undefined || c.rampUp !== undefined || c.rampDown !== undefined) return '--stages/--ramp-up/--ramp-down (a shortened baseline would cut the load shape)';
  if (c.ui) return '--ui (a load changed live would void the comparison)';
  return undefined;
}

export type AutoBaseline =
  | { kind: 'none' }
  | { kind: 'skip'; note: string }
  /** `note`: the automatic baseline's stderr line. */
  | { kind: 'run'; plan: BaselinePlan; note?: string };

/**
 * Whether `run` measures a short-only baseline first on its own: the workload is mixed-length (length-mix.ts) and
 * neither --short-baseline nor --no-short-baseline was given. Reads the workload's planned lengths; sends nothing.
 */
export function autoBaseline(resolved: ResolvedRun): AutoBaseline {
  const c = resolved.config;
  if (!c.autoShortBaseline || c.shortBaseline !== undefined) return { kind: 'none' };
  let plan;
  try {
    plan = runLengthPlan(c);
  } catch (e) {
    // Requests that wait for earlier answers cannot be planned, so whether they are mixed is not known: nothing is said.
    if (e instanceof UnplannableLengths) return { kind: 'none' };
    throw e;
  }
  const mix = lengthMix(plan);
  if (!mix.mixed) return { kind: 'none' };
  const why = cannotRun(c);
  if (why) return { kind: 'skip', note: `mixed lengths: ${describeMix(mix)}; no automatic short-only baseline with ${why}` };
  const wave = firstWave(c);
  // The first wave gives no values on either side: a run hardly longer than it has too few to compare.
  if (plan.planned !== undefined && plan.planned - wave < AUTO_MIN_REQUESTS)
    return { kind: 'skip', note: `mixed lengths: ${describeMix(mix)}; no automatic short-only baseline: ${plan.planned} requests leave fewer than ${AUTO_MIN_REQUESTS} after the first wave of ${wave} (--concurrency), which neither run can compare` };
  const size = boundedSize(plan.planned, c.duration, wave);
  const what = [size.requests !== undefined ? `${size.requests} requests` : '', size.duration !== undefined ? `${size.duration} s` : ''].filter(Boolean).join(' or ');
  return {
    kind: 'run',
    plan: { threshold: mix.threshold, automatic: true, ...size },
    note: `mixed lengths: ${describeMix(mix)}; measuring a short-only baseline of ${what} first (--no-short-baseline to skip)`,
  };
}

/**
 * The plan of an explicit --short-baseline TOKENS: the mixed run's size (the user asked for the cost). Refused (exit 2,
 * nothing sent) without --out and where a baseline cannot run.
 */
export function explicitBaseline(c: RunConfig): BaselinePlan {
  if (c.out === undefined) throw new UsageError(['--short-baseline: give --out DIR: the short-only baseline goes to DIR/short-baseline/ beside the mixed run in DIR']);
  if (c.runs > 1 || c.evalUnderLoad || c.shard !== undefined || c.startAt !== undefined) throw new UsageError(['--short-baseline: not with --runs, --eval-under-load or --shard/--start-at']);
  return { threshold: parseTokenCount(c.shortBaseline!), automatic: false, sizeRule: "the mixed run's size (--short-baseline)" };
}

/** The run's short-only baseline: the one --short-baseline asks for, else the automatic one (or the note why not). */
export function shortBaselineFor(resolved: ResolvedRun): AutoBaseline {
  const c = resolved.config;
  if (c.shortBaseline === undefined) return autoBaseline(resolved);
  return { kind: 'run', plan: explicitBaseline(c) };
}
