// Workload: turns the run config into the RequestSpec for each request index.
import type { RunConfig } from '../config/schema.js';
import type { Tokenizer } from './tokenizer.js';
import type { Rng } from '../util/rng.js';
import type { RequestSpec } from './types.js';
import type { RequestRecord } from '../metrics/record.js';
import { nonce, textOfTokens } from './synthetic.js';

/** What the run tells the workload about a finished request (multi-turn sessions feed answers back). */
export interface CompletedRequest {
  spec: RequestSpec;
  ok: boolean;
  answerText: string;
  reasoningText: string;
  record: RequestRecord;
}

export interface Workload {
  /**
   * Spec for request `index` (warmup included); undefined when the workload is exhausted, which ends the run
   * for that virtual user. May return a promise (e.g. to wait for the previous turn of a conversation).
   */
  next(index: number): RequestSpec | undefined | Promise<RequestSpec | undefined>;
  /** Called when a request finishes, before its slot is reused. */
  complete?(done: CompletedRequest): void;
  /** Number of requests the workload holds, when finite (once-mode datasets); used as the default request count. */
  size?: number;
  /** Send times (ms from the start) for trace replay; when present they replace the arrival process. */
  arrivalTimesMs?: number[];
  /** What the workload is (and anything it skipped), for the run metadata. */
  describe(): Record<string, unknown>;
}

/**
 * Synthetic workload: prompts of exactly `inputTokens` tokens (unique nonce first unless cacheBust is off),
 * `outputTokens` requested. Specs are built ahead of the run when the request count is known, so no
 * tokenization happens on the request path.
 */
export function createWorkload(c: RunConfig, tok: Tokenizer, rng: Rng, total: number | undefined): Workload {
  const make = (): RequestSpec => {
    const head = c.cacheBust ? nonce(rng) : '';
    const { text, tokens } = textOfTokens(tok, c.inputTokens, c.cacheBust ? rng : fixedRng(rng), head);
    return { messages: [{ role: 'user', content: text }], prompt: text, inputTokens: tokens, maxTokens: c.outputTokens };
  };
  const pre: RequestSpec[] = total !== undefined ? Array.from({ length: total }, make) : [];
  return {
    next: (i) => pre[i] ?? make(),
    describe: () => ({ kind: 'synthetic', input_tokens: c.inputTokens, output_tokens: c.outputTokens, cache_bust: c.cacheBust }),
  };
}

/** Without cache busting every prompt is the same text, so the same offset is used each time. */
const fixedCache = new WeakMap<Rng, Rng>();
function fixedRng(rng: Rng): Rng {
  let f = fixedCache.get(rng);
  if (!f) {
    const v = rng.next();
    f = { ...rng, next: () => v, int: (min, max) => min + Math.floor(v * (max - min + 1)) };
    fixedCache.set(rng, f);
  }
  return f;
}
