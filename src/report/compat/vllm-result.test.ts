// vllmPercentileKey: the percentile keys of vllm-result.json, spelled as vLLM's serve.py spells them.
import { describe, expect, it } from 'vitest';
import { vllmPercentileKey } from './vllm-result.js';

describe('vllmPercentileKey', () => {
  it("writes p{str(int(p)) if int(p) == p else str(p)}_{metric}_ms, Python's float repr included", () => {
    expect(vllmPercentileKey(99, 'ttft')).toBe('p99_ttft_ms');
    expect(vllmPercentileKey(99.9, 'e2el')).toBe('p99.9_e2el_ms');
    expect(vllmPercentileKey(99.99, 'itl')).toBe('p99.99_itl_ms');
    expect(vllmPercentileKey(0.0001, 'tpot')).toBe('p0.0001_tpot_ms');
    // Python's repr switches to exponent form below 1e-4, with at least two exponent digits.
    expect(vllmPercentileKey(0.00005, 'tpot')).toBe('p5e-05_tpot_ms');
    expect(vllmPercentileKey(0.000015, 'tpot')).toBe('p1.5e-05_tpot_ms');
  });
});
