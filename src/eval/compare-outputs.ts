// `eval --compare-outputs URL`: the same prompts at temperature 0 on two targets, answer texts compared item by item.
// Speculative decoding is lossless only if the verified output equals plain decoding's: any difference is a finding.
import type { EvalOutcome } from './workload.js';

/** Mismatches kept in eval.json and printed; the counts cover them all. */
export const MAX_MISMATCHES_SHOWN = 20;
/** Characters of each side shown around the first difference. */
const EXCERPT = 40;

export interface OutputMismatch {
  item_id: string;
  repeat: number;
  /** Character index of the first difference (the shorter length when one text is a prefix of the other). */
  first_difference_at: number;
  /** Each side's text from EXCERPT characters before the difference to EXCERPT after (already sanitized answers). */
  baseline: string;
  candidate: string;
}

export interface OutputComparison {
  /** The second target (redacted URL). */
  target: string;
  /** Items (× repeats) answered by both targets. */
  pairs: number;
  equal: number;
  mismatched: number;
  /** Answered by only one target (the other's request failed): not compared. */
  unpaired: number;
  /** equal / pairs (1 when nothing was paired). */
  equal_share: number;
  mismatches: OutputMismatch[];
}

const key = (o: EvalOutcome): string => `${o.item.id}\u0000${o.repeat}`;

/** First index where a and b differ; the shorter length when one is a prefix of the other; -1 when equal. */
export function firstDifference(a: string, b: string): number {
  if (a === b) return -1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/** Pair the outcomes of the main target (baseline) and the second (candidate) by item and repeat, compare texts. */
export function compareOutputs(baseline: readonly EvalOutcome[], candidate: readonly EvalOutcome[], target: string): OutputComparison {
  const other = new Map<string, EvalOutcome>();
  for (const o of candidate) other.set(key(o), o);
  let pairs = 0, equal = 0, unpaired = 0;
  const all: OutputMismatch[] = [];
  const seen = new Set<string>();
  for (const a of baseline) {
    const k = key(a);
    seen.add(k);
    const b = other.get(k);
    if (a.answerText === null || !b || b.answerText === null) {
      unpaired++;
      continue;
    }
    pairs++;
    const at = firstDifference(a.answerText, b.answerText);
    if (at < 0) {
      equal++;
      continue;
    }
    const from = Math.max(0, at - EXCERPT);
    all.push({ item_id: a.item.id, repeat: a.repeat, first_difference_at: at, baseline: a.answerText.slice(from, at + EXCERPT), candidate: b.answerText.slice(from, at + EXCERPT) });
  }
  for (const b of candidate) if (!seen.has(key(b))) unpaired++;
  all.sort((x, y) => (x.item_id < y.item_id ? -1 : x.item_id > y.item_id ? 1 : x.repeat - y.repeat));
  return { target, pairs, equal, mismatched: all.length, unpaired, equal_share: pairs ? equal / pairs : 1, mismatches: all.slice(0, MAX_MISMATCHES_SHOWN) };
}

/** Terminal lines: the verdict, then the first mismatches with their excerpts (JSON-quoted: server text is untrusted). */
export function renderOutputComparison(c: OutputComparison, maxRows = 5): string {
  const head = `outputs vs ${c.target}: ${c.equal}/${c.pairs} identical${c.mismatched ? `, ${c.mismatched} differ` : ''}${c.unpaired ? `, ${c.unpaired} not compared (a request failed)` : ''}`;
  const rows = c.mismatches.slice(0, maxRows).map((m) => `  ${m.item_id}${m.repeat ? ` #${m.repeat}` : ''} at char ${m.first_difference_at}: ${JSON.stringify(m.baseline)} vs ${JSON.stringify(m.candidate)}`);
  return [head, ...rows].join('\n');
}
