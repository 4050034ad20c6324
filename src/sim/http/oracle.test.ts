// The sim's oracle: every shipped item is recognised in tokenflood's templates, and its replies grade as it decided.
import { describe, it, expect } from 'vitest';
import { loadTokenizer } from '../../dataset/tokenizer.js';
import { loadEvalSet, SHIPPED_SETS } from '../../eval/sets.js';
import { buildPrompt } from '../../eval/prompt.js';
import { grade } from '../../eval/grade.js';
import { createOracle, recognise } from './oracle.js';

const tok = loadTokenizer('cl100k_base');
const sets = SHIPPED_SETS.map((s) => loadEvalSet(s));

describe('oracle', () => {
  it('recognises every shipped item in chat and completions prompts, zero- and few-shot (a same-text twin counts)', () => {
    for (const set of sets)
      for (const item of set.items)
        for (const shots of [0, 3]) {
          const p = buildPrompt(set, item, shots);
          for (const text of [p.messages.map((m) => m.content).join('\n'), p.prompt]) {
            const k = recognise(text);
            expect(k, `${item.id} shots=${shots}`).toBeDefined();
            expect(k!.item.question).toBe(item.question);
            expect(k!.item.answer).toBe(item.answer);
          }
        }
    expect(recognise('Write a story about a river and a house.')).toBeUndefined();
  });

  it('answers right with probability p; the replies grade exactly as drawn; int4 only turns right answers wrong', () => {
    const fp16 = createOracle({ accuracy: 0.8, modelProfile: 'tiny', weightDtype: 'fp16', seed: 1 }, tok);
    const int4 = createOracle({ accuracy: 0.8, modelProfile: 'tiny', weightDtype: 'int4', seed: 1 }, tok);
    let right = 0, total = 0, flipsUp = 0, flipsDown = 0;
    for (const set of sets)
      for (const item of set.items) {
        const text = buildPrompt(set, item, 0).prompt;
        const verdict = (o: typeof fp16, reasoning: boolean) => {
          const a = o.answer(text, { reasoning })!;
          const answer = a.pieces.slice(a.reasoningTokens).join('');
          return grade(answer, item.answer, { mode: set.mode }).correct;
        };
        const r = verdict(fp16, false);
        // Reasoning text holds a wrong guess: graded on the answer only, the verdict is the same.
        expect(verdict(fp16, true)).toBe(r);
        const q = verdict(int4, false);
        if (r) right++;
        total++;
        if (!r && q) flipsUp++;
        if (r && !q) flipsDown++;
      }
    // 1,200 draws at p = 0.8: sd = 1.15 points; ±4 points is 3.5 sd.
    expect(right / total).toBeGreaterThan(0.76);
    expect(right / total).toBeLessThan(0.84);
    expect(flipsUp).toBe(0);
    expect(flipsDown).toBeGreaterThan(40);
  });

  it('int8 answers as fp8 and mxfp4 as int4 (the same drop per set); fp32 as bf16', () => {
    const answers = (weightDtype: string) => {
      const o = createOracle({ accuracy: 0.8, modelProfile: 'tiny', weightDtype, seed: 1 }, tok);
      return sets.flatMap((set) => set.items.slice(0, 40).map((item) => o.answer(buildPrompt(set, item, 0).prompt, { reasoning: false })!.pieces.join('')));
    };
    expect(answers('int8')).toEqual(answers('fp8'));
    expect(answers('mxfp4')).toEqual(answers('int4'));
    expect(answers('fp32')).toEqual(answers('bf16'));
    expect(answers('mxfp4')).not.toEqual(answers('bf16'));
  });

  it('has a corrupted twin of every reply: same length, always wrong', () => {
    const o = createOracle({ accuracy: 1, modelProfile: 'tiny', weightDtype: 'fp16', seed: 1 }, tok);
    for (const set of sets)
      for (const item of set.items.slice(0, 40)) {
        const a = o.answer(buildPrompt(set, item, 0).prompt, { reasoning: false })!;
        expect(a.corrupted.length).toBe(a.pieces.length);
        expect(grade(a.pieces.join(''), item.answer, { mode: set.mode }).correct).toBe(true);
        expect(grade(a.corrupted.join(''), item.answer, { mode: set.mode }).correct).toBe(false);
      }
  });
});
