// Numeric answers, extracted like lm-evaluation-harness's GSM8K flexible-extract, compared as decimals.
import { answerPart, foldWidth } from './grade-text.js';

/** A number as written: thousands separators, a decimal part, a fraction a/b, a sign, a leading $ or a trailing %. */
const NUMBER = /-?\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?\/\s?\d+(?:\.\d+)?)?%?|-?\.\d+/g;

/** The contents of the last `\boxed{...}` (or `\fbox{...}`), braces balanced, or undefined. */
export function lastBoxed(s: string): string | undefined {
  const at = Math.max(s.lastIndexOf('\\boxed'), s.lastIndexOf('\\fbox'));
  if (at < 0) return undefined;
  let i = s.indexOf('{', at);
  if (i < 0) return undefined;
  const start = ++i;
  for (let depth = 1; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return s.slice(start, i);
  }
  return undefined;
}

/** LaTeX to plain text where it matters for a number: \frac{a}{b} → a/b, {,} → ",", \text{...}, \$, spacing and \circ dropped. */
export function delatex(s: string): string {
  return s
    .replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, '($1)/($2)')
    .replace(/\\[dt]?frac(\d)(\d)/g, '$1/$2')
    .replace(/\{,\}/g, ',')
    .replace(/\\text(?:bf|rm)?\s*\{[^{}]*\}/g, ' ')
    .replace(/\\mbox\s*\{[^{}]*\}/g, ' ')
    .replace(/\^\s*\{?\\circ\}?/g, '')
    .replace(/\\[$%]/g, (m) => m.slice(1))
    .replace(/\\[,!;: ]|\\quad|\\left|\\right/g, '')
    .replace(/\\(?:cdot|times)/g, '*');
}

/** A numeric string → its value: "1,234.50" → 1234.5, "$18" → 18, "3/4" → 0.75, "(3)/(4)" → 0.75; NaN when it is not one number. */
export function numericValue(raw: string): number {
  const s = foldWidth(raw).replace(/[\s$%]/g, '').replace(/,(?=\d{3}(\D|$))/g, '').replace(/\.$/, '');
  const frac = /^(-?)\(?(-?\d+(?:\.\d+)?)\)?\/\(?(\d+(?:\.\d+)?)\)?$/.exec(s);
  if (frac) {
    const d = Number(frac[3]);
    return d === 0 ? NaN : (frac[1] ? -1 : 1) * (Number(frac[2]) / d);
  }
  return /^-?(\d+(\.\d*)?|\.\d+)$/.test(s) ? Number(s) : NaN;
}

/** The last number in `s` as written (after LaTeX clean-up), or undefined. */
export function lastNumber(s: string): string | undefined {
  const all = delatex(foldWidth(s)).replace(/\((-?\d+)\)\/\((\d+)\)/g, '$1/$2').match(NUMBER);
  return all?.at(-1)?.trim();
}

/** The first number in `s`, or undefined (an "Answer:" line's own number comes first, a unit or a comment after it). */
function firstNumber(s: string): string | undefined {
  return delatex(foldWidth(s)).replace(/\((-?\d+)\)\/\((\d+)\)/g, '$1/$2').match(NUMBER)?.[0]?.trim();
}

/** Where the answer was found: the rule that matched, for eval.jsonl and the docs' examples. */
export type NumericRule = 'boxed' | 'hashes' | 'answer_line' | 'answer_phrase' | 'last_number';

/**
 * The model's final number, by the first rule that applies: the last `\boxed{}`; the last `#### n`; the last line
 * with an "Answer:"/"答案" marker (its first number); "the answer is n"; otherwise the last number in the reply.
 */
export function extractNumber(text: string): { value: string; rule: NumericRule } | undefined {
  const t = foldWidth(answerPart(text));
  const boxed = lastBoxed(t);
  if (boxed !== undefined) {
    const v = lastNumber(boxed);
    if (v !== undefined) return { value: v, rule: 'boxed' };
  }
  const hashes = [...t.matchAll(/####\s*([^\n]*)/g)].at(-1);
  if (hashes) {
    const v = firstNumber(hashes[1]);
    if (v !== undefined) return { value: v, rule: 'hashes' };
  }
  const lines = [...t.matchAll(/(?:^|\n)[\s*#>_-]*(?:final\s+answer|answer|答案|最终答案)\s*(?:is)?\s*\**\s*[:：=]\s*\**([^\n]*)/gi)].at(-1);
  if (lines) {
    const v = firstNumber(lines[1]);
    if (v !== undefined) return { value: v, rule: 'answer_line' };
  }
  const phrase = [...t.matchAll(/(?:the\s+(?:final\s+)?answer\s+is|答案是)\s*[:：]?\s*([^\n]*)/gi)].at(-1);
  if (phrase) {
    const v = firstNumber(phrase[1]);
    if (v !== undefined) return { value: v, rule: 'answer_phrase' };
  }
  const last = lastNumber(t);
  return last === undefined ? undefined : { value: last, rule: 'last_number' };
}

/** Equal as decimals: 18 = 18.0 = 18.00, 0.5 = 1/2 (relative tolerance 1e-9 for fractions that do not end). */
export function sameNumber(a: string, gold: string): boolean {
  const x = numericValue(a);
  const y = numericValue(gold);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return false;
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
}
