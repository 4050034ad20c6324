import { describe, it, expect } from 'vitest';
import { countSplittingRuns, RUN_PIECE } from './split-count.js';
import { loadTokenizer } from './tokenizer.js';

describe('countSplittingRuns', () => {
  for (const name of ['cl100k_base', 'o200k_base']) {
    const tok = loadTokenizer(name);
    it(`equals the whole-text count for runs and ordinary text (${name})`, () => {
      const texts = [
        'Hello, world. An ordinary sentence with no long runs.',
        `intro ${'好'.repeat(3 * RUN_PIECE + 17)} outro`,
        `a${'='.repeat(5000)}b`,
        ' '.repeat(4000) + 'x',
        `${'\n'.repeat(3000)}end`,
        'a'.repeat(2 * RUN_PIECE + 1),
        '',
      ];
      for (const t of texts) expect(countSplittingRuns(tok, t), JSON.stringify(t.slice(0, 20))).toBe(tok.count(t));
    });
  }
  it('stays fast on a 64k run of one character', () => {
    const tok = loadTokenizer('cl100k_base');
    const t0 = performance.now();
    expect(countSplittingRuns(tok, '好'.repeat(64_000))).toBeGreaterThan(10_000);
    expect(performance.now() - t0).toBeLessThan(10_000); // whole-text BPE: 16 s on an idle machine
  });
});
