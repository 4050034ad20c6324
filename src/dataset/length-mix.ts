// Is a run's workload mixed-length? The intended prompt lengths of its planned requests, read before anything is sent,
// against a short/long threshold (docs/metrics.md#short-vs-long-baseline): the trigger of the automatic short-only baseline.
import { DEFAULT_LENGTH_BANDS, parseLengthBands } from '../metrics/length-bands.js';
import { createRng } from '../util/rng.js';
import { sampleLength } from './distribution.js';
import { pickClass } from './mix.js';
import { resolveClasses } from './synthetic-workload.js';
import { createWorkload, workloadKind } from './workload.js';
import type { Tokenizer } from './tokenizer.js';
import type { WorkloadParams } from './params.js';

/** What planning needs of a run: its workload options (warmup resolved), the workload seed, and --duration in seconds. */
export interface PlanInput {
  params: WorkloadParams;
  seed: number;
  durationS?: number;
}

/** The default boundary: the first of the default --length-bands (4k = 4096 tokens), so the baseline's "short" is by_length_band's first band. */
export const DEFAULT_SHORT_THRESHOLD = parseLengthBands(DEFAULT_LENGTH_BANDS)[0].hi!;
/** An endless workload is judged on this many of its first draws. */
export const LENGTH_SAMPLE = 1000;
/** Each side needs at least this share of the planned requests … */
export const MIN_SIDE_SHARE = 0.1;
/** … and at least this many of them, so each side of the comparison has data. */
export const MIN_SIDE_REQUESTS = 5;

/** Planned intended prompt lengths: all measured requests of a finite plan, else a sample of the first draws. */
export interface LengthPlan {
  lengths: number[];
  /** Measured requests the run plans; undefined for a --duration run (its count is decided by time). */
  planned: number | undefined;
  /** `lengths` is a sample of the first draws rather than every planned request. */
  sampled: boolean;
}

export interface LengthMix {
  threshold: number;
  /** Shares of the plan under and at or above the threshold. */
  shortShare: number;
  longShare: number;
  /** Planned measured requests on each side (estimated from the sample's shares when sampled). */
  shortRequests: number;
  longRequests: number;
  mixed: boolean;
}

/** Measured requests of a run: --requests, else 100 unless --duration decides (a finite workload's size comes later). */
function measuredRequests(p: PlanInput): number | undefined {
  return p.params.requests ?? (p.durationS === undefined ? 100 : undefined);
}

/**
 * Synthetic lengths drawn as the synthetic workload draws them (the same seed and fork order, lengths only: no prompt
 * is built): prefix + input tokens of each request, warmup requests dropped.
 */
function syntheticLengths(p: PlanInput): LengthPlan {
  const s = p.params;
  const classes = resolveClasses(s);
  // lifecycle: createRng(seed).fork() is the workload's stream; the synthetic workload forks its length stream first.
  const rng = createRng(p.seed).fork().fork();
  const planned = measuredRequests(p);
  const draws = Math.min(LENGTH_SAMPLE, planned ?? LENGTH_SAMPLE);
  const lengths: number[] = [];
  for (let i = 0; i < s.warmup + draws; i++) {
    const k = classes.length > 1 ? classes[pickClass(classes, rng.next())] : classes[0];
    let input = sampleLength(k.input, rng);
    const output = s.maxTokens ?? sampleLength(k.output, rng);
    // --max-model-len: the workload redraws a request that does not fit; cut here, as its last resort does.
    if (s.maxModelLen !== undefined && s.prefixTokens + input + output > s.maxModelLen) input = Math.max(1, s.maxModelLen - output - s.prefixTokens);
    if (i >= s.warmup) lengths.push(s.prefixTokens + input);
  }
  return { lengths, planned, sampled: planned === undefined || planned > draws };
}

/** Why a workload's lengths cannot be planned ahead (its requests depend on earlier answers). */
export class UnplannableLengths extends Error {}

/**
 * A dataset or replay workload's planned lengths: the workload is built once more (files read, prompts counted, nothing
 * sent) and its specs read in order. Throws UnplannableLengths for trace sessions and multi-turn data.
 */
function builtLengths(p: PlanInput, tok: Tokenizer): LengthPlan {
  const s = p.params;
  const measured = measuredRequests(p);
  const total = measured === undefined ? undefined : measured + s.warmup;
  const w = createWorkload(s, tok, createRng(p.seed).fork(), total);
  if (w.schedule) throw new UnplannableLengths('trace sessions (a turn waits for its predecessor)');
  const planned = s.requests ?? (w.size !== undefined && p.durationS === undefined ? Math.max(0, w.size - s.warmup) : measured);
  const end = s.warmup + Math.min(LENGTH_SAMPLE, planned ?? LENGTH_SAMPLE);
  const lengths: number[] = [];
  for (let i = 0; i < end; i++) {
    const spec = w.next(i);
    if (spec instanceof Promise) throw new UnplannableLengths('multi-turn conversations (a turn waits for the answer to the last)');
    if (spec === undefined) break;
    if (i >= s.warmup) lengths.push(spec.inputTokens);
  }
  return { lengths, planned, sampled: planned === undefined || planned > lengths.length };
}

/** The planned prompt lengths of a run, before anything is sent. */
export function planLengths(p: PlanInput, tok: Tokenizer): LengthPlan {
  return workloadKind(p.params) === 'synthetic' ? syntheticLengths(p) : builtLengths(p, tok);
}

/** Short (under `threshold`) and long shares of a plan; mixed when each side has MIN_SIDE_SHARE and MIN_SIDE_REQUESTS. */
export function lengthMix(plan: LengthPlan, threshold = DEFAULT_SHORT_THRESHOLD): LengthMix {
  const n = plan.lengths.length;
  const short = plan.lengths.filter((x) => x < threshold).length;
  const shortShare = n ? short / n : 0;
  const longShare = n ? (n - short) / n : 0;
  // A --duration run's count is unknown ahead: its sample's counts stand in.
  const base = plan.planned ?? n;
  const [shortRequests, longRequests] = [Math.round(shortShare * base), Math.round(longShare * base)];
  const side = (share: number, count: number) => share >= MIN_SIDE_SHARE && count >= MIN_SIDE_REQUESTS;
  return { threshold, shortShare, longShare, shortRequests, longRequests, mixed: n > 0 && side(shortShare, shortRequests) && side(longShare, longRequests) };
}

/** "70% under 4k, 30% over" (k = 1024 tokens, as the length bands write it). */
export function describeMix(m: LengthMix): string {
  const k = m.threshold % 1024 === 0 ? `${m.threshold / 1024}k` : `${m.threshold} tokens`;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return `${pct(m.shortShare)} under ${k}, ${pct(m.longShare)} over`;
}
