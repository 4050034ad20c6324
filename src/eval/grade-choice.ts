// Multiple-choice answers: the option letter from common answer forms, English and Chinese.
import { answerPart, foldWidth } from './grade-text.js';

export type ChoiceRule = 'marker' | 'boxed' | 'leading' | 'first_letter';

/** Answer markers followed by a letter; the last one in the reply wins ("答案：B", "选B", "Answer: (C)", "the correct option is D"). */
const MARKERS =
  /(?:答案|正确答案|最终答案|正确选项)\s*(?:是|为|应为|应该是|选)?\s*[:：]?\s*[(（[【]?\s*([A-Da-d])(?![A-Za-z])|选(?:择|项)?\s*[(（[【]?\s*([A-D])(?![A-Za-z])|(?:final\s+answer|answer|correct\s+(?:answer|option|choice)|best\s+(?:answer|option))\s*(?:is|would\s+be|:|=)?\s*[:：]?\s*\**\s*(?:option|choice)?\s*[(\[]?\s*([A-D])(?![A-Za-z])|(?:option|choice)\s+\(?([A-D])\)?\s+is\s+(?:the\s+)?correct/gi;

/**
 * The chosen letter A–D, by the first rule that applies: the last answer marker with a letter; the last `\boxed{X}`;
 * a reply that starts with the letter ("B", "(B)", "B.", "B) ..."); otherwise the first standalone letter A–D,
 * where "A" followed by a lowercase word is the English article, not an option.
 */
export function extractChoice(text: string): { value: string; rule: ChoiceRule } | undefined {
  const t = foldWidth(answerPart(text));
  const marked = [...t.matchAll(MARKERS)].at(-1);
  if (marked) {
    const letter = marked.slice(1).find((g) => g !== undefined);
    if (letter) return { value: letter.toUpperCase(), rule: 'marker' };
  }
  const boxed = [...t.matchAll(/\\boxed\s*\{\s*(?:\\text\s*\{)?\s*\(?([A-D])\)?\s*\}/g)].at(-1);
  if (boxed) return { value: boxed[1], rule: 'boxed' };
  const lead = /^[\s*_#>]*[(\[]?([A-D])(?:[).:\]]|\s*$|\s+[-—:]|\s*\n)/.exec(t);
  if (lead) return { value: lead[1], rule: 'leading' };
  for (const m of t.matchAll(/(?<![A-Za-z0-9_'’-])([A-D])(?![A-Za-z0-9_'’])/g)) {
    const after = t.slice(m.index + 1);
    if (m[1] === 'A' && /^\s+[a-z]/.test(after) && !/^\s+is\b/.test(after)) continue;
    return { value: m[1], rule: 'first_letter' };
  }
  return undefined;
}
