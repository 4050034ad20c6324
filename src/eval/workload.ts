// The eval workload: each graded item (K times with --repeat) as one request; the answers are graded as they finish.
import type { Workload, CompletedRequest } from '../dataset/workload-types.js';
import type { RequestSpec } from '../dataset/types.js';
import type { Tokenizer } from '../dataset/tokenizer.js';
import { stripControls } from '../util/terminal-text.js';
import { grade, type GradeSpec, type Verdict } from './grade.js';
import { buildPrompt, contextDocument } from './prompt.js';
import type { EvalItem, EvalSet } from './sets.js';

/** Longest answer text kept per item in eval.jsonl (characters); a longer one is cut and marked. */
export const MAX_ANSWER_CHARS = 4000;

export interface EvalOutcome {
  item: EvalItem;
  /** 0-based pass over the set (--repeat). */
  repeat: number;
  /** The request record's id in requests.jsonl. */
  requestId: number;
  status: string;
  /** The answer text, sanitized (control characters and secrets removed, cut at MAX_ANSWER_CHARS); null when the request failed. */
  answerText: string | null;
  verdict: Verdict;
  promptTokens: number;
  /** When the run carried load (--eval-under-load), the load level this answer was sent at. */
  level?: string;
}

export interface EvalWorkloadOptions {
  set: EvalSet;
  items: readonly EvalItem[];
  shots: number;
  repeat: number;
  maxTokens: number;
  grading: GradeSpec;
  tokenizer: Tokenizer;
  redact: (s: string) => string;
  /** Traffic class of the requests (probes inside a load run: "eval"). */
  cls?: string;
  /** --context-tokens: a prose preamble of about this many tokens before every prompt. */
  contextTokens?: number;
}

export interface EvalWorkload extends Workload {
  /** Outcomes so far, in the order the requests finished. */
  outcomes(): EvalOutcome[];
  /** The spec of probe number `n` (0-based), or undefined past the end; for probe streams inside a load run. */
  spec(n: number): RequestSpec | undefined;
  /** Record the answer to probe number `n`. */
  completeProbe(n: number, done: CompletedRequest, level?: string): void;
}

/** Server text is untrusted: control characters and secrets out, length capped. */
export function sanitizeAnswer(text: string, redact: (s: string) => string): string {
  const t = stripControls(redact(text));
  return t.length > MAX_ANSWER_CHARS ? `${t.slice(0, MAX_ANSWER_CHARS)}…[cut]` : t;
}

export function createEvalWorkload(o: EvalWorkloadOptions): EvalWorkload {
  const n = o.items.length;
  const size = n * o.repeat;
  const specs = new Map<number, RequestSpec>();
  const out: EvalOutcome[] = [];
  const context = contextDocument(o.contextTokens ?? 0, (s) => o.tokenizer.count(s));
  const specOf = (i: number): RequestSpec | undefined => {
    if (i < 0 || i >= size) return undefined;
    const k = i % n;
    let s = specs.get(k);
    if (!s) {
      const p = buildPrompt(o.set, o.items[k], o.shots, context);
      const inputTokens = p.messages.reduce((t, m) => t + o.tokenizer.count(m.content), 0);
      s = { messages: p.messages, prompt: p.prompt, inputTokens, maxTokens: o.maxTokens, source: o.items[k].id, natural: true, ...(o.cls ? { class: o.cls } : {}) };
      specs.set(k, s);
    }
    return s;
  };
  const record = (i: number, done: CompletedRequest, level?: string): void => {
    const item = o.items[i % n];
    const ok = done.ok;
    // Graded on the answer text only: a reasoning model's reasoning_content is never searched for the answer.
    const verdict = ok ? grade(done.answerText, item.answer, o.grading) : { extracted: null, correct: false, rule: null };
    out.push({
      item, repeat: Math.floor(i / n), requestId: done.record.id, status: done.record.status,
      answerText: ok ? sanitizeAnswer(done.answerText, o.redact) : null,
      verdict: verdict.extracted !== null ? { ...verdict, extracted: sanitizeAnswer(verdict.extracted, o.redact) } : verdict,
      promptTokens: done.spec.inputTokens, ...(level !== undefined ? { level } : {}),
    });
  };
  return {
    size,
    prefetchable: true,
    next: specOf,
    spec: specOf,
    complete(done) {
      record(done.record.id, done);
    },
    completeProbe: record,
    outcomes: () => out,
    describe: () => ({ kind: 'eval', set: o.set.name, items: n, repeat: o.repeat, shots: o.shots, grading: o.grading.mode }),
  };
}
