// Cache A/B: the same prompts sent twice, cold then warm (the warm pass starts only after every cold request finished).
import type { WorkloadParams } from './params.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { RequestSpec } from './types.js';
import type { Workload } from './workload-types.js';
import { UsageError } from '../errors.js';
import { createSyntheticWorkload } from './synthetic-workload.js';
import { createDatasetWorkload } from './dataset-workload.js';

/** Prompts per pass without --requests and without a dataset. */
const DEFAULT_PROMPTS = 50;

function take(w: Workload, i: number): RequestSpec | undefined {
  const s = w.next(i);
  if (s instanceof Promise) throw new UsageError(['--cache-ab: needs single requests, not multi-turn conversations']);
  return s;
}

/**
 * Warmup requests (distinct prompts, excluded from statistics) come first, then N prompts as class `cold`,
 * then the same N prompts as class `warm`. N is half of --requests, else the dataset size, else 50.
 */
export function withCacheAb(c: WorkloadParams, tok: Tokenizer, rng: Rng, signal?: AbortSignal): Workload {
  const base = c.dataset ? createDatasetWorkload(c, tok, rng, signal) : undefined;
  const wanted = c.requests !== undefined ? Math.max(1, Math.floor(c.requests / 2)) : undefined;
  const n = wanted ?? (base ? Math.max(1, (base.describe().items as number) - c.warmup) : DEFAULT_PROMPTS);
  // Synthetic prompts stream: the warm pass regenerates the cold prompts from a copy of the generator's state,
  // so memory does not grow with --requests. Dataset items are already in memory and are kept as they are.
  const warmRng = base ? undefined : rng.clone();
  const source = base ?? createSyntheticWorkload(c, tok, rng, c.warmup + n, signal);
  const warmup: RequestSpec[] = [];
  for (let i = 0; i < c.warmup; i++) {
    const s = take(source, i);
    if (s) warmup.push(s);
  }
  const W = warmup.length;
  let coldSpecs: RequestSpec[] | undefined;
  if (base) {
    coldSpecs = [];
    for (let i = 0; i < n; i++) {
      const s = take(source, c.warmup + i);
      if (!s) break;
      coldSpecs.push(s);
    }
  }
  const perPass = coldSpecs ? coldSpecs.length : n;
  let warmSource: Workload | undefined;
  const coldAt = (j: number): RequestSpec | undefined => {
    const s = coldSpecs ? coldSpecs[j] : take(source, c.warmup + j);
    return s && { ...s, class: 'cold' };
  };
  const warmAt = (j: number): RequestSpec | undefined => {
    if (coldSpecs) return { ...coldSpecs[j], class: 'warm' };
    warmSource ??= createSyntheticWorkload(c, tok, warmRng as Rng, c.warmup + n, signal);
    const s = take(warmSource, c.warmup + j);
    return s && { ...s, class: 'warm' };
  };
  let coldDone = 0;
  const waiters: ((go: boolean) => void)[] = [];
  const release = (go: boolean) => {
    while (waiters.length) waiters.shift()?.(go);
  };
  signal?.addEventListener('abort', () => release(false), { once: true });
  const info: Record<string, unknown> = {
    kind: 'cache-ab',
    prompts_per_pass: perPass,
    passes: ['cold', 'warm'],
    compare: 'summary.by_class.cold vs summary.by_class.warm: ttft_ms and cached_tokens (the warm pass repeats the cold prompts exactly)',
    cold_completed: 0,
    source: source.describe(),
  };
  return {
    size: W + 2 * perPass,
    next(i) {
      if (i < W) return warmup[i];
      if (i < W + perPass) return coldAt(i - W);
      if (i >= W + 2 * perPass) return undefined;
      const j = i - W - perPass;
      if (coldDone >= perPass) return warmAt(j);
      if (signal?.aborted) return undefined;
      return new Promise<boolean>((r) => waiters.push(r)).then((go) => (go ? warmAt(j) : undefined));
    },
    complete(done) {
      if (done.spec.class !== 'cold') return;
      info.cold_completed = ++coldDone;
      if (coldDone >= perPass) release(true);
    },
    describe: () => info,
  };
}
