// Synthetic workload: lengths from distributions, optionally a weighted mix of classes, prompts cut from the corpus.
import type { RunConfig } from '../config/schema.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { RequestSpec } from './types.js';
import type { Workload } from './workload.js';
import { UsageError } from '../errors.js';
import { distLowest, sampleLength } from './distribution.js';
import { loadEmpiricalFile } from './empirical.js';
import { parseMix, pickClass, type ResolvedClass } from './mix.js';
import { resolveLength } from './lengths.js';
import { createPromptBuilder } from './prompt.js';

/** Resolve --mix (or the single implicit class) into sampleable classes; every problem names its flag. */
export function resolveClasses(c: RunConfig): ResolvedClass[] {
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

/** Draws before giving up on finding lengths that fit --max-model-len. */
const MAX_DRAWS = 1000;

/**
 * Prompts of exactly the sampled input length (after any shared prefix), the sampled output length
 * requested. Specs are built ahead of the run when the request count is known, so no tokenization happens
 * on the request path.
 */
export function createSyntheticWorkload(c: RunConfig, tok: Tokenizer, rng: Rng, total: number | undefined): Workload {
  const classes = resolveClasses(c);
  const limit = c.maxModelLen;
  if (limit !== undefined) {
    const fits = classes.some((k) => c.prefixTokens + distLowest(k.input) + (c.maxTokens ?? distLowest(k.output)) <= limit);
    if (!fits) throw new UsageError([`--max-model-len: ${limit} is smaller than the shortest possible request (prefix + input + output)`]);
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
  });
  const info: Record<string, unknown> = {
    kind: 'synthetic',
    input_tokens: c.inputTokens,
    output_tokens: c.maxTokens !== undefined ? `fixed:${c.maxTokens} (--max-tokens)` : c.outputTokens,
    corpus: c.corpus,
    cache_bust: c.cacheBust,
    prefix_tokens: c.prefixTokens,
    prefix_groups: c.prefixTokens > 0 ? c.prefixGroups : 0,
    ...(c.mix ? { mix: classes.map((k) => ({ class: k.name, weight: k.weight, input: k.input.spec, output: k.output.spec })) } : {}),
    ...(limit !== undefined ? { max_model_len: limit, skipped_over_max_model_len: 0 } : {}),
  };
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
  const pre: RequestSpec[] = total !== undefined ? Array.from({ length: total }, make) : [];
  return {
    next: (i) => pre[i] ?? make(),
    // A live object: counts that grow during the run reach summary.run.workload.
    describe: () => info,
  };
}
