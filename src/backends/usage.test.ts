import { describe, it, expect } from 'vitest';
import { checkUsage, EXTRA_OUTPUT_TOKENS, MAX_TOKENS_VALUE, type UsageReport } from './usage.js';

const report = (o: Partial<UsageReport>): UsageReport => ({ prompt_tokens: undefined, completion_tokens: undefined, reasoning_tokens: undefined, cached_tokens: undefined, ...o });

describe('checkUsage', () => {
  it('keeps sane counts, including zero and the headroom above max_tokens', () => {
    expect(checkUsage(report({ prompt_tokens: 10, completion_tokens: 0, cached_tokens: 0 }), 5)).toEqual({
      usage: { inputTokens: 10, outputTokens: 0, reasoningTokens: null, cachedTokens: 0 },
      rejected: null,
    });
    const edge = checkUsage(report({ completion_tokens: 100 + EXTRA_OUTPUT_TOKENS, reasoning_tokens: 90 }), 100);
    expect(edge.usage.outputTokens).toBe(100 + EXTRA_OUTPUT_TOKENS);
    expect(edge.usage.reasoningTokens).toBe(90);
    expect(edge.rejected).toBeNull();
  });

  it('drops each value that is not a count and says why, keeping the others', () => {
    const cases: [unknown, string][] = [
      [-5, 'completion_tokens=-5 is not a non-negative integer'],
      [1.5, 'completion_tokens=1.5 is not a non-negative integer'],
      [Infinity, 'completion_tokens=Infinity is not a non-negative integer'],
      [2 ** 60, `completion_tokens=${2 ** 60} is not a non-negative integer`],
      [MAX_TOKENS_VALUE + 1, `completion_tokens=${MAX_TOKENS_VALUE + 1} is more than ${MAX_TOKENS_VALUE}`],
      ['7', 'completion_tokens="7" is not a non-negative integer'],
      [{ n: 1 }, 'completion_tokens={"n":1} is not a non-negative integer'],
      [101 + EXTRA_OUTPUT_TOKENS, `completion_tokens=${101 + EXTRA_OUTPUT_TOKENS} is more than max_tokens (100) + ${EXTRA_OUTPUT_TOKENS}`],
    ];
    for (const [v, why] of cases) {
      const r = checkUsage(report({ prompt_tokens: 8, completion_tokens: v, reasoning_tokens: 2 }), 100);
      expect(r.rejected, String(v)).toBe(why);
      // without a completion count the tokenizer counts reasoning too
      expect(r.usage, String(v)).toEqual({ inputTokens: 8, outputTokens: null, reasoningTokens: null, cachedTokens: null });
    }
  });

  it('checks reasoning against completion and cached against prompt; joins several reasons; escapes and truncates server text', () => {
    const r = checkUsage(report({ prompt_tokens: 4, completion_tokens: 3, reasoning_tokens: 9, cached_tokens: 5 }), 10);
    expect(r.usage).toEqual({ inputTokens: 4, outputTokens: 3, reasoningTokens: null, cachedTokens: null });
    expect(r.rejected).toBe('reasoning_tokens=9 is more than completion_tokens (3); cached_tokens=5 is more than prompt_tokens (4)');
    const hostile = checkUsage(report({ prompt_tokens: `\u001b[31m${'z'.repeat(100)}` }), 10).rejected!;
    expect(hostile).not.toMatch(/\u001b/);
    expect(hostile.length).toBeLessThan(100);
  });
});
