// INT4 KV cache in the engine model: half a byte per value, so twice fp8's blocks and half its KV reads.
import { describe, expect, it } from 'vitest';
import { resolveEngine } from './config.js';
import { decodeShape, stepCost } from './cost.js';

describe('--kv-dtype int4', () => {
  const spec = (kvDtype: 'bf16' | 'fp8' | 'int4') => resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100', kvDtype });

  it('holds 2x the KV tokens of fp8 and 4x of bf16 in the same memory', () => {
    const [bf16, fp8, int4] = [spec('bf16'), spec('fp8'), spec('int4')];
    expect(int4.kvBytesPerToken).toBe(bf16.kvBytesPerToken / 4);
    expect(int4.numBlocks / fp8.numBlocks).toBeCloseTo(2, 2);
    expect(int4.numBlocks / bf16.numBlocks).toBeCloseTo(4, 2);
  });

  it('reads half the KV bytes of fp8 in a long-context decode step, so the step is shorter', () => {
    const shape = decodeShape(64, 32_000);
    const fp8 = stepCost(spec('fp8'), shape);
    const int4 = stepCost(spec('int4'), shape);
    const weights = spec('fp8').weightBytesPerGpu;
    expect((int4.bytes - weights) / (fp8.bytes - weights)).toBeCloseTo(0.5, 6);
    expect(int4.attentionMs).toBeLessThan(fp8.attentionMs * 0.6);
  });
});
