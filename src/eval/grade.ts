// Grading one reply against the gold answer: the mode by kind (numeric, choice, exact, regex), as a pure function.
import { extractNumber, sameNumber } from './grade-numeric.js';
import { extractChoice } from './grade-choice.js';
import { answerPart, normalizeExact } from './grade-text.js';
import { lastMatch } from './grade-regex.js';

export const GRADE_MODES = ['numeric', 'choice', 'exact', 'regex'] as const;
export type GradeMode = (typeof GRADE_MODES)[number];

export interface GradeSpec {
  mode: GradeMode;
  /** regex mode: the answer is the first capture group (or the whole match) of the pattern's last match. */
  pattern?: RegExp;
}

export interface Verdict {
  /** The extracted answer as written, null when none was found. */
  extracted: string | null;
  correct: boolean;
  /** The extraction rule that matched (docs/eval.md#grading), null when none did. */
  rule: string | null;
}

/** Grade `answerText` (the answer, never the reasoning) against `gold`. */
export function grade(answerText: string, gold: string, spec: GradeSpec): Verdict {
  switch (spec.mode) {
    case 'numeric': {
      const x = extractNumber(answerText);
      return x ? { extracted: x.value, correct: sameNumber(x.value, gold), rule: x.rule } : { extracted: null, correct: false, rule: null };
    }
    case 'choice': {
      const x = extractChoice(answerText);
      return x ? { extracted: x.value, correct: x.value === gold.trim().toUpperCase(), rule: x.rule } : { extracted: null, correct: false, rule: null };
    }
    case 'exact': {
      const t = answerPart(answerText).trim();
      if (!t) return { extracted: null, correct: false, rule: null };
      return { extracted: t, correct: normalizeExact(t) === normalizeExact(gold), rule: 'exact' };
    }
    case 'regex': {
      // Bounded in time (grade-regex.ts): a match that runs past the deadline is graded wrong, rule regex_timeout.
      const m = lastMatch(spec.pattern!.source, spec.pattern!.flags, answerPart(answerText));
      if (m === 'timeout') return { extracted: null, correct: false, rule: 'regex_timeout' };
      if (m.value === null) return { extracted: null, correct: false, rule: null };
      const v = m.value.trim();
      return { extracted: v, correct: normalizeExact(v) === normalizeExact(gold), rule: 'regex' };
    }
  }
}
