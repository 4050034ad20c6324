// Expert parallelism and DP attention in the step model: busiest-GPU load, all-to-all versus all-reduce, KV reads.
import { describe, expect, it } from 'vitest';
import { resolveEngine } from './config.js';
import { decodeShape, kvReadBytesPerGpu, stepCost } from './cost.js';
import { epLoadFactor, parallelCommMs } from './comm.js';

describe('expert parallelism and DP attention', () => {
  it('the busiest EP GPU: ~skew at large batch, more at small batch, never above ep', () => {
    expect(epLoadFactor(1, 8, 100, 1.2)).toBe(1);
    expect(epLoadFactor(8, 8, 100_000, 1)).toBeCloseTo(1, 1);
    expect(epLoadFactor(8, 8, 100_000, 1.2)).toBeCloseTo(1.2, 1);
    expect(epLoadFactor(8, 8, 4, 1)).toBeGreaterThan(1.5);
    expect(epLoadFactor(8, 1, 1, 10)).toBe(8);
  });

  it('DP attention swaps the attention all-reduces for an all-to-all per MoE layer; dense layers keep theirs', () => {
    const tp = resolveEngine({ gpu: 'h200', model: 'deepseek-r1', tp: 8, ep: 8 });
    const dp = resolveEngine({ gpu: 'h200', model: 'deepseek-r1', tp: 8, ep: 8, dpAttention: true });
    // Large step: TP all-reduces all tokens' activations twice per layer; all-to-all moves 1/8 of them k times.
    expect(parallelCommMs(dp, 4096)).toBeLessThan(parallelCommMs(tp, 4096));
    expect(parallelCommMs(tp, 0)).toBe(0);
    // Each GPU reads the latent of its own 1/8 of the sequences, not all of them.
    expect(kvReadBytesPerGpu(dp, 64, 2000)).toBeCloseTo(kvReadBytesPerGpu(tp, 64, 2000) / 8, 0);
    // At batch 1 the replicated attention weights make DP attention slower; at batch 256 the KV reads make it faster.
    expect(stepCost(dp, decodeShape(1, 2000)).totalMs).toBeGreaterThan(stepCost(tp, decodeShape(1, 2000)).totalMs);
    expect(stepCost(dp, decodeShape(256, 4000)).attentionMs).toBeLessThan(stepCost(tp, decodeShape(256, 4000)).attentionMs);
  });
});
