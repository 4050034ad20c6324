// The grading rules on model outputs with tricky formats: each row states the extracted answer and the verdict.
import { describe, it, expect } from 'vitest';
import { grade, type GradeMode } from './grade.js';

type Row = [text: string, gold: string, extracted: string | null, correct: boolean];

const NUMERIC: Row[] = [
  ['18', '18', '18', true],
  ['She makes 9 * 2 = 18 dollars.\n#### 18', '18', '18', true],
  ['#### 1,234', '1234', '1,234', true],
  ['The total is $1,234.50 in all.', '1234.5', '$1,234.50', true],
  ['Answer: 18.00', '18', '18.00', true],
  ['Answer: 18.', '18', '18', true],
  ['The answer is \\boxed{42}.', '42', '42', true],
  ['So $x = \\boxed{-3}$', '-3', '-3', true],
  ['\\boxed{\\frac{3}{4}}', '0.75', '3/4', true],
  ['\\boxed{-\\frac{1}{2}}', '-0.5', '-1/2', true],
  ['\\boxed{\\dfrac{5}{2}}', '2.5', '5/2', true],
  ['\\boxed{1{,}000}', '1000', '1,000', true],
  ['\\boxed{\\$18}', '18', '$18', true],
  ['\\boxed{18\\text{ dollars}}', '18', '18', true],
  ['The angle is \\boxed{30^\\circ}.', '30', '30', true],
  ['\\boxed{25\\%}', '25', '25%', true],
  ['First 3 + 4 = 7, then 7 * 2 = 14. So 14 apples.', '14', '14', true],
  ['He had 5 bags with 12 each, 60 total, then gave away 20, leaving 40.', '40', '40', true],
  ['It takes 3 bolts.', '3', '3', true],
  ['The result is 17 (not 18).', '17', '18', false],
  ['Answer: 17\nCheck: 17 + 1 = 18', '17', '17', true],
  ['#### 20\nNote: 2 of them were broken.', '20', '20', true],
  ['Final answer: 0.5', '1/2', '0.5', true],
  ['The answer is 1/2.', '0.5', '1/2', true],
  ['The temperature drops to −5 degrees.', '-5', '-5', true],
  ['The temperature drops to -5 degrees.', '5', '-5', false],
  ['It costs 70 cm of ribbon, so 70cm.', '70', '70', true],
  ['答案：１２', '12', '12', true],
  ['所以答案是 36。', '36', '36', true],
  ['<think>Maybe it is 12. Or 15.</think>The answer is 14.', '14', '14', true],
  ['<think>Let me compute 18 * 2 = 36 and so on', '36', null, false],
  ['</think>\n\nAnswer: 9', '9', '9', true],
  ['I cannot solve this problem.', '7', null, false],
  ['', '7', null, false],
  ['The answer is 3.14159', '3.14159', '3.14159', true],
  ['The answer is 3.14', '3.14159', '3.14', false],
  ['**Answer:** 42', '42', '42', true],
  ['Total = 2,000,000 dollars', '2000000', '2,000,000', true],
  ['We need 1, 2 and 3 boxes: 6 boxes', '6', '6', true],
  ['\\boxed{}\nThe answer is 5', '5', '5', true],
  ['The answer is 5 and \\boxed{6}', '6', '6', true],
  ['x = .5', '0.5', '.5', true],
];

const CHOICE: Row[] = [
  ['B', 'B', 'B', true],
  ['(C)', 'C', 'C', true],
  ['D. Paris is the capital', 'D', 'D', true],
  ['Answer: A', 'A', 'A', true],
  ['The answer is (B).', 'B', 'B', true],
  ['The correct option is D.', 'D', 'D', true],
  ['A good way to see this is the definition. The correct answer is C.', 'C', 'C', true],
  ['A is correct.', 'A', 'A', true],
  ['答案：B', 'B', 'B', true],
  ['答案为C', 'C', 'C', true],
  ['选B', 'B', 'B', true],
  ['故选：D', 'D', 'D', true],
  ['正确答案是（A）', 'A', 'A', true],
  ['答案：Ｂ', 'B', 'B', true],
  ['本题考查史实。A项错误，B项正确。故选B。', 'B', 'B', true],
  ['\\boxed{C}', 'C', 'C', true],
  ['<think>Option A looks right. No wait, maybe D.</think>Answer: B', 'B', 'B', true],
  ['<think>I think the answer is A', 'A', null, false],
  ['Options B and C are wrong; final answer: A', 'A', 'A', true],
  ['answer: c', 'C', 'C', true],
  ['I would go with B because the others are wrong.', 'B', 'B', true],
  ['None of them.', 'A', null, false],
  ['Answer: B\n\nExplanation: A is wrong because...', 'A', 'B', false],
];

const EXACT: Row[] = [
  ['Paris', 'paris', 'Paris', true],
  ['  Paris.  ', 'Paris', 'Paris.', true],
  ['The capital is Paris', 'Paris', 'The capital is Paris', false],
  ['<think>London?</think>Paris', 'Paris', 'Paris', true],
];

const REGEX: [text: string, gold: string, pattern: RegExp, extracted: string | null, correct: boolean][] = [
  ['Result: yes', 'yes', /Result:\s*(\w+)/, 'yes', true],
  ['Result: no\nResult: YES', 'yes', /Result:\s*(\w+)/, 'YES', true],
  ['nothing here', 'yes', /Result:\s*(\w+)/, null, false],
  ['label=positive', 'positive', /label=\w+/, 'label=positive', false],
];

function check(mode: GradeMode, rows: Row[]): void {
  for (const [text, gold, extracted, correct] of rows)
    it(`${JSON.stringify(text).slice(0, 70)} (gold ${gold})`, () => {
      const v = grade(text, gold, { mode });
      expect({ extracted: v.extracted, correct: v.correct }).toEqual({ extracted, correct });
    });
}

describe('numeric grading', () => check('numeric', NUMERIC));
describe('multiple-choice grading', () => check('choice', CHOICE));
describe('exact grading', () => check('exact', EXACT));
describe('regex grading', () => {
  for (const [text, gold, pattern, extracted, correct] of REGEX)
    it(`${JSON.stringify(text)} with ${String(pattern)}`, () => {
      const v = grade(text, gold, { mode: 'regex', pattern });
      expect({ extracted: v.extracted, correct: v.correct }).toEqual({ extracted, correct });
    });
  it('has at least 60 outputs in all', () => expect(NUMERIC.length + CHOICE.length + EXACT.length + REGEX.length).toBeGreaterThanOrEqual(60));
});

describe('regex grading on hostile patterns (bounded time, grade-regex.ts)', () => {
  it('(a+)+$ on a 50,000-character answer ends (the linear engine takes over) with the right verdict', () => {
    const v = grade(`${'a'.repeat(50_000)}!`, 'a', { mode: 'regex', pattern: /(a+)+$/ });
    expect(v).toEqual({ extracted: null, correct: false, rule: null });
    expect(grade('aaa', 'aaa', { mode: 'regex', pattern: /(a+)+$/ })).toMatchObject({ extracted: 'aaa', correct: true });
  });

  it('a backtracking pattern the linear engine cannot take (a backreference) stops at the deadline: graded wrong, rule regex_timeout', () => {
    const v = grade(`${'a'.repeat(50_000)}!`, 'a', { mode: 'regex', pattern: /(a+)+\1$/ });
    expect(v).toEqual({ extracted: null, correct: false, rule: 'regex_timeout' });
  }, 30_000);
});
