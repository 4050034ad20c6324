// The eval summary (eval.json): accuracy overall and per slice with Wilson 95% intervals, consistency, and per-item lines.
import { wilson } from './stats.js';
import type { EvalOutcome } from './workload.js';

export interface Accuracy {
  correct: number;
  total: number;
  /** correct / total; failed requests count as wrong (they are also counted in `errors`). */
  accuracy: number;
  /** Wilson score 95% interval of `accuracy`. */
  ci95: [number, number];
  errors: number;
  /** Answered but no answer could be extracted. */
  unextracted: number;
}

export interface Consistency {
  repeat: number;
  items: number;
  /** Share of items whose K answer texts are byte-identical. */
  identical_share: number;
  /** Share of items whose K extracted answers are equal. */
  identical_extracted_share: number;
}

export interface EvalSummary {
  set: string;
  grading: string;
  items: number;
  overall: Accuracy;
  /** slice field → value → accuracy; fields: set, subject (shipped sets), prompt_length, and a user set's own fields. */
  slices: Record<string, Record<string, Accuracy>>;
  consistency?: Consistency;
  /** Accuracy per load level (--eval-under-load): the idle baseline first. */
  levels?: Record<string, Accuracy>;
}

/** Prompt-length bucket by powers of two: "<128", "128-255", ..., "≥4096" tokens. */
export function promptLengthBucket(tokens: number): string {
  if (tokens < 128) return '<128';
  for (let lo = 128; lo < 4096; lo *= 2) if (tokens < lo * 2) return `${lo}-${lo * 2 - 1}`;
  return '≥4096';
}

export function accuracyOf(xs: readonly EvalOutcome[]): Accuracy {
  const correct = xs.filter((x) => x.verdict.correct).length;
  const total = xs.length;
  const w = wilson(correct, total);
  return {
    correct, total, accuracy: total ? correct / total : 0, ci95: [w.low, w.high],
    errors: xs.filter((x) => x.status !== 'ok').length,
    unextracted: xs.filter((x) => x.status === 'ok' && x.verdict.extracted === null).length,
  };
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    if (k === undefined) continue;
    let g = m.get(k);
    if (!g) m.set(k, (g = []));
    g.push(x);
  }
  return m;
}

/** Answers of repeats 1..K−1 against repeat 0, per item. */
function consistencyOf(all: readonly EvalOutcome[], repeat: number): Consistency {
  const byItem = groupBy(all, (x) => x.item.id);
  let same = 0;
  let sameExtracted = 0;
  for (const g of byItem.values()) {
    if (g.every((x) => x.answerText !== null && x.answerText === g[0].answerText)) same++;
    if (g.every((x) => x.verdict.extracted !== null && x.verdict.extracted === g[0].verdict.extracted)) sameExtracted++;
  }
  const items = byItem.size;
  return { repeat, items, identical_share: items ? same / items : 0, identical_extracted_share: items ? sameExtracted / items : 0 };
}

/** The summary of a finished eval; accuracy counts each item's first pass (repeat 0), consistency all passes. */
export function summarizeEval(set: string, grading: string, outcomes: readonly EvalOutcome[], repeat: number): EvalSummary {
  const first = outcomes.filter((x) => x.repeat === 0).sort((a, b) => a.requestId - b.requestId);
  const fields = new Set<string>(first.flatMap((x) => Object.keys(x.item.slices)));
  const slices: EvalSummary['slices'] = {};
  for (const f of [...fields].sort()) slices[f] = Object.fromEntries([...groupBy(first, (x) => x.item.slices[f])].sort().map(([k, g]) => [k, accuracyOf(g)]));
  slices.prompt_length = Object.fromEntries([...groupBy(first, (x) => promptLengthBucket(x.promptTokens))].map(([k, g]) => [k, accuracyOf(g)]));
  const s: EvalSummary = { set, grading, items: first.length, overall: accuracyOf(first), slices };
  if (repeat > 1) s.consistency = consistencyOf(outcomes, repeat);
  return s;
}

/** One eval.jsonl line per answer (snake_case fields). */
export function outcomeLine(x: EvalOutcome): Record<string, unknown> {
  return {
    item_id: x.item.id,
    repeat: x.repeat,
    request_id: x.requestId,
    ...(x.level !== undefined ? { level: x.level } : {}),
    status: x.status,
    gold: x.item.answer,
    answer_text: x.answerText,
    extracted: x.verdict.extracted,
    rule: x.verdict.rule,
    correct: x.verdict.correct,
    prompt_tokens: x.promptTokens,
    slices: x.item.slices,
  };
}
