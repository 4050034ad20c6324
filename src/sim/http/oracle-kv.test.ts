// The oracle's KV-quantization cost: grows with the input length, larger for int4 than fp8, none for 16-bit KV.
import { describe, it, expect } from 'vitest';
import { loadTokenizer } from '../../dataset/tokenizer.js';
import { loadEvalSet, SHIPPED_SETS } from '../../eval/sets.js';
import { buildPrompt } from '../../eval/prompt.js';
import { grade } from '../../eval/grade.js';
import { createOracle, kvQuantDrop } from './oracle.js';

const tok = loadTokenizer('cl100k_base');
const sets = SHIPPED_SETS.map((s) => loadEvalSet(s));

/** Share of the 1,200 shipped items the oracle answers right with this KV precision at this input length. */
function accuracy(kvDtype: string, promptTokens: number): number {
  const o = createOracle({ accuracy: 0.8, modelProfile: 'tiny', weightDtype: 'bf16', kvDtype, seed: 1 }, tok);
  let right = 0, total = 0;
  for (const set of sets)
    for (const item of set.items) {
      const a = o.answer(buildPrompt(set, item, 0).prompt, { reasoning: false, promptTokens })!;
      if (grade(a.pieces.join(''), item.answer, { mode: set.mode }).correct) right++;
      total++;
    }
  return right / total;
}

describe('oracle: KV quantization on long inputs', () => {
  it('the drop formula: 0 for bf16, grows per doubling past 4K, int4 > fp8', () => {
    expect(kvQuantDrop('bf16', 128_000)).toBe(0);
    expect(kvQuantDrop('fp8', 2000)).toBe(0);
    expect(kvQuantDrop('int4', 4096)).toBeCloseTo(0.01, 10);
    expect(kvQuantDrop('int4', 32_768)).toBeCloseTo(0.01 + 3 * 0.03, 10);
    expect(kvQuantDrop('fp8', 32_768)).toBeCloseTo(3 * 0.005, 10);
  });

  it('graded accuracy: bf16 KV is the same at 1K and 32K; int4 loses ~10 points at 32K and ~1 at 1K; fp8 loses ~1.5 at 32K', () => {
    const bf16Short = accuracy('bf16', 1000);
    expect(accuracy('bf16', 32_000)).toBe(bf16Short);
    const int4Short = accuracy('int4', 1000);
    const int4Long = accuracy('int4', 32_000);
    const fp8Long = accuracy('fp8', 32_000);
    // 1,200 items: a drop of d turns about d · 1,200 right answers wrong (nested draws, so no noise in the sign).
    expect(bf16Short - int4Short).toBeLessThan(0.03);
    expect(bf16Short - int4Long).toBeGreaterThan(0.06);
    expect(bf16Short - fp8Long).toBeLessThan(0.04);
    expect(int4Long).toBeLessThan(fp8Long - 0.04);
  });
});
