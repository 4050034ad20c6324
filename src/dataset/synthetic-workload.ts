// Synthetic workload: lengths from distributions, optionally a weighted mix of classes, prompts cut from the corpus.
import type { WorkloadParams } from './params.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { RequestSpec } from './types.js';
import type { Workload } from './workload-types.js';
import { UsageError } from '../errors.js';
import { distHighest, distLowest, sampleLength } from './distribution.js';
import { loadEmpiricalFile } from './empirical.js';
import { parseMix, pickClass, type ResolvedClass } from './mix.js';
import { resolveLength } from './lengths.js';
import { createPromptBuilder } from './prompt.js';
import { createMediaPlan, type MediaPlan } from './media-plan.js';
import { createMediaPool } from './media-pool.js';
import { renderMedia } from './synth-media.js';
import type { MediaPart } from './types.js';

/** Resolve --mix (or the single implicit class) into sampleable classes; every problem names its flag. */
export function resolveClasses(c: WorkloadParams): ResolvedClass[] {
  const input = resolveLength(c.inputTokens, '--input-tokens');
  const output = resolveLength(c.outputTokens, '--output-tokens');
  if (!c.mix) return [{ name: undefined, weight: 1, input, output }];
  let mix;
  try {
    mix = parseMix(c.mix, loadEmpiricalFile);
  } catch (e) {
    throw new UsageError([`--mix: ${(e as Error).message}`]);
  }
  return mix.map((m) => ({
    name: m.name,
    weight: m.weight,
    input: m.input ? resolveLength(m.input, `--mix class ${m.name} in`) : input,
    output: m.output ? resolveLength(m.output, `--mix class ${m.name} out`) : output,
  }));
}

/**
 * A vendor API's caps against what the workload can send: the longest prompt (shared prefix + the input
 * distribution's highest value) and the largest max_tokens (--max-tokens, else the output distribution's highest).
 * An unbounded distribution without max= could pass any cap, so it is a problem too. Every class is checked.
 */
export function capProblems(c: Pick<WorkloadParams, 'maxInputTokens' | 'maxOutputTokens' | 'prefixTokens' | 'maxTokens' | 'inputTokens' | 'outputTokens'>, classes: readonly ResolvedClass[]): string[] {
  const out: string[] = [];
  for (const k of classes) {
    const where = (flag: string, spec: string) => (k.name === undefined ? `${flag} ${spec}` : `--mix class ${k.name} (${spec})`);
    const hi = distHighest(k.input);
    if (c.maxInputTokens !== undefined && c.prefixTokens + hi > c.maxInputTokens) {
      const reach = Number.isFinite(hi) ? `prompts of up to ${c.prefixTokens + hi} tokens${c.prefixTokens ? ` (${c.prefixTokens} of them --prefix-tokens)` : ''}` : 'prompts of any length (no max=)';
      out.push(`--max-input-tokens ${c.maxInputTokens}: ${where('--input-tokens', k.input.spec)} can send ${reach}, which the API would refuse; shorten the prompts or bound them with ,max=${Math.max(1, c.maxInputTokens - c.prefixTokens)}`);
    }
    const outHi = c.maxTokens ?? distHighest(k.output);
    if (c.maxOutputTokens !== undefined && outHi > c.maxOutputTokens) {
      const what = c.maxTokens !== undefined ? `--max-tokens ${c.maxTokens}` : where('--output-tokens', k.output.spec);
      const reach = Number.isFinite(outHi) ? `max_tokens up to ${outHi}` : 'any max_tokens (no max=)';
      out.push(`--max-output-tokens ${c.maxOutputTokens}: ${what} can ask for ${reach}, which the API would refuse; lower it or bound it with ,max=${c.maxOutputTokens}`);
    }
  }
  return [...new Set(out)];
}

/** Draws before giving up on finding lengths that fit --max-model-len. */
const MAX_DRAWS = 1000;

/** Specs kept ready ahead of the requests that take them: memory is bounded by this, not by --requests. */
export const READ_AHEAD = 256;
/** Building before the first request stops after this long (or READ_AHEAD specs), so the first request leaves soon. */
const INITIAL_BUILD_MS = 200;
/** One background refill slice: short enough not to delay a socket noticeably. */
const REFILL_SLICE_MS = 3;

/**
 * Prompts of exactly the sampled input length (after any shared prefix), the sampled output length
 * requested. Specs are built in request order with a bounded read-ahead: a first batch before the run, then
 * topped up in short slices between events, so tokenization stays off the request path without building the
 * whole run up front. The sequence for a seed is the same however far ahead it is built.
 */
export function createSyntheticWorkload(c: WorkloadParams, tok: Tokenizer, rng: Rng, total: number | undefined, signal?: AbortSignal): Workload {
  const classes = resolveClasses(c);
  const capped = capProblems(c, classes);
  if (capped.length) throw new UsageError(capped);
  const limit = c.maxModelLen;
  if (limit !== undefined) {
    const fits = classes.some((k) => c.prefixTokens + distLowest(k.input) + (c.maxTokens ?? distLowest(k.output)) <= limit);
    if (!fits) throw new UsageError([`--max-model-len: ${limit} is smaller than the shortest possible request (prefix + input + output)`]);
  }
  let plan: MediaPlan | undefined;
  try {
    plan = createMediaPlan(c);
  } catch (e) {
    throw new UsageError([(e as Error).message]);
  }
  const lengthRng = rng.fork();
  const builder = createPromptBuilder({
    tok,
    corpus: c.corpus,
    cacheBust: c.cacheBust,
    prefixTokens: c.prefixTokens,
    prefixGroups: c.prefixGroups,
    endpoint: c.endpoint,
    rng: rng.fork(),
    salt: c.promptSalt,
  });
  const info: Record<string, unknown> = {
    kind: 'synthetic',
    input_tokens: c.inputTokens,
    output_tokens: c.maxTokens !== undefined ? `fixed:${c.maxTokens} (--max-tokens)` : c.outputTokens,
    corpus: c.corpus,
    cache_bust: c.cacheBust,
    prompts: c.promptSalt ? 'fresh' : 'seeded',
    prefix_tokens: c.prefixTokens,
    prefix_groups: c.prefixTokens > 0 ? c.prefixGroups : 0,
    ...(c.mix ? { mix: classes.map((k) => ({ class: k.name, weight: k.weight, input: k.input.spec, output: k.output.spec })) } : {}),
    ...(limit !== undefined ? { max_model_len: limit, skipped_over_max_model_len: 0 } : {}),
  };
  const media = plan && createMediaAhead(plan, info, total, signal);
  const make = (): RequestSpec => {
    for (let draw = 0; ; draw++) {
      const k = classes.length > 1 ? classes[pickClass(classes, lengthRng.next())] : classes[0];
      let input = sampleLength(k.input, lengthRng);
      const output = c.maxTokens ?? sampleLength(k.output, lengthRng);
      if (limit !== undefined && c.prefixTokens + input + output > limit) {
        info.skipped_over_max_model_len = (info.skipped_over_max_model_len as number) + 1;
        if (draw < MAX_DRAWS) continue;
        input = Math.max(1, limit - output - c.prefixTokens);
      }
      return builder.build(input, output, k.name);
    }
  };
  // ready holds specs for indexes [built - ready.size, built) not yet taken, keyed by request index.
  const ready = new Map<number, RequestSpec>();
  let built = 0;
  let taken = 0;
  const wanted = () => Math.min(total ?? Number.POSITIVE_INFINITY, taken + READ_AHEAD);
  const fill = (budgetMs: number): void => {
    const t0 = performance.now();
    while (built < wanted() && ready.size < READ_AHEAD) {
      ready.set(built++, make());
      if (performance.now() - t0 >= budgetMs) break;
    }
  };
  let refillQueued = false;
  const refill = (): void => {
    refillQueued = false;
    if (signal?.aborted) return;
    fill(REFILL_SLICE_MS);
    if (built < wanted() && ready.size < READ_AHEAD) queueRefill();
  };
  const queueRefill = (): void => {
    if (refillQueued) return;
    refillQueued = true;
    setImmediate(refill);
  };
  fill(INITIAL_BUILD_MS);
  return {
    prefetchable: true,
    next: (i) => {
      taken = Math.max(taken, i + 1);
      // Requests take indexes in order; a skipped index is dropped so the buffer cannot grow.
      for (const k of ready.keys()) {
        if (k >= i) break;
        ready.delete(k);
      }
      let spec = ready.get(i);
      if (spec) ready.delete(i);
      else {
        for (; built < i; built++) make();
        // An index taken twice (no caller does) gets a fresh spec rather than a stale one.
        spec = make();
        if (built === i) built++;
      }
      if (built < wanted()) queueRefill();
      if (!media) return spec;
      const s = spec;
      const parts = media.take(i);
      return parts instanceof Promise ? parts.then((m) => ({ ...s, media: m })) : { ...s, media: parts };
    },
    // A live object: counts that grow during the run reach summary.run.workload.
    describe: () => info,
  };
}

/** Requests' media rendered ahead, at most this many bytes of raw pixels/samples' worth in flight or waiting. */
export const MEDIA_AHEAD_BYTES = 64 * 1024 * 1024;
/** … and at most this many requests ahead (at least 2). */
export const MEDIA_AHEAD_MAX = 64;
/** Media rendered in this thread before the run (the first wave leaves with its media ready), at most this long. */
const MEDIA_INITIAL_MS = 500;

/**
 * Media for request indexes taken in order, rendered on the media thread a bounded number of requests ahead
 * (MEDIA_AHEAD_BYTES / MEDIA_AHEAD_MAX). take(i) answers at once when i is ready, else with a promise of it (the
 * request then waits for its media, never the thread: counted as media_waited in the workload's description).
 */
function createMediaAhead(plan: MediaPlan, info: Record<string, unknown>, total: number | undefined, signal?: AbortSignal) {
  const end = total ?? Number.POSITIVE_INFINITY;
  const pool = createMediaPool(plan.threads);
  const ahead = Math.max(2 * pool.threads, Math.min(MEDIA_AHEAD_MAX, Math.floor(MEDIA_AHEAD_BYTES / Math.max(1, plan.rawBytesPerRequest))));
  const ready = new Map<number, MediaPart[]>();
  const inflight = new Map<number, Promise<MediaPart[]>>();
  let next = 0; // lowest index not yet asked of the pool
  let taken = 0;
  info.media = { ...plan.describe(), read_ahead: ahead, threaded: pool.threaded, threads: pool.threaded ? pool.threads : 0, media_waited: 0 };
  const stats = info.media as Record<string, unknown>;
  const request = (k: number) => {
    const p = pool.render(plan.jobs(k));
    inflight.set(k, p);
    p.then(
      (m) => {
        inflight.delete(k);
        if (k >= taken) ready.set(k, m);
        top();
      },
      () => inflight.delete(k),
    );
    return p;
  };
  const top = () => {
    if (signal?.aborted) return;
    while (next < end && next < taken + ahead && ready.size + inflight.size < ahead) request(next++);
  };
  const t0 = performance.now();
  while (next < ahead && next < end && performance.now() - t0 < MEDIA_INITIAL_MS) ready.set(next, plan.jobs(next++).map(renderMedia));
  top();
  signal?.addEventListener('abort', () => void pool.close(), { once: true });
  return {
    take(i: number): MediaPart[] | Promise<MediaPart[]> {
      taken = Math.max(taken, i + 1);
      for (const k of ready.keys()) if (k < i) ready.delete(k);
      const got = ready.get(i);
      if (got) {
        ready.delete(i);
        top();
        return got;
      }
      stats.media_waited = (stats.media_waited as number) + 1;
      const p = inflight.get(i) ?? (i >= next ? ((next = Math.max(next, i + 1)), request(i)) : pool.render(plan.jobs(i)));
      top();
      return pool.hold(p);
    },
  };
}
