// 32K vs 128K max_model_len: what the configured maximum changes in the engine model (the block-table upload per step)
// and what it does not (KV capacity, weights, attention work, CUDA-graph sizes), one test per claim in docs/sim.md.
import { describe, expect, it } from 'vitest';
import { resolveEngine } from './config.js';
import { decodeShape, prefillShape, stepCost } from './cost.js';
import { withEngineProfile } from './tuning.js';

const at = (maxModelLen: number, extra: Record<string, unknown> = {}) => resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100', maxModelLen, ...extra });

describe('max_model_len in the engine model', () => {
  it('a step uploads one block-table row per scheduled request, ceil(max_len / block_size) int32s: 128K costs 4x 32K', () => {
    const [s32, s128] = [at(32_768), at(131_072)];
    expect(s32.blockTableBytesPerRequest).toBe(2048 * 4);
    expect(s128.blockTableBytesPerRequest).toBe(8192 * 4);
    const shape = decodeShape(256, 2000);
    const d32 = stepCost(s32, shape);
    const d128 = stepCost(s128, shape);
    // 256 rows of 24 KiB more at 25 GB/s: 0.25 ms more per decode step.
    expect(d128.overheadMs - d32.overheadMs).toBeCloseTo((256 * 6144 * 4) / 25e9 * 1000, 9);
    expect(d128.totalMs).toBeGreaterThan(d32.totalMs);
    // The same bytes per request whatever the step does: a one-request prefill pays one row.
    expect(stepCost(s128, prefillShape(4000)).overheadMs - stepCost(s32, prefillShape(4000)).overheadMs).toBeCloseTo((6144 * 4) / 25e9 * 1000, 9);
  });

  it('the engine keeping its table on the GPU (SGLang preset, --block-table-upload false) pays nothing for a longer maximum', () => {
    const sg = (len: number) => resolveEngine(withEngineProfile({ engine: 'sglang', model: 'llama-3.1-8b', gpu: 'h100', maxModelLen: len }) as Record<string, unknown>);
    expect(sg(131_072).blockTableBytesPerRequest).toBe(0);
    expect(stepCost(sg(131_072), decodeShape(64, 2000)).totalMs).toBe(stepCost(sg(32_768), decodeShape(64, 2000)).totalMs);
  });

  it('does not change KV capacity, weights, attention and linear work, or the CUDA-graph batch limit', () => {
    const [s32, s128] = [at(32_768), at(131_072)];
    expect(s128.numBlocks).toBe(s32.numBlocks);
    expect(s128.weightBytesPerGpu).toBe(s32.weightBytesPerGpu);
    expect(s128.cudaGraphMaxBatch).toBe(s32.cudaGraphMaxBatch);
    const shape = decodeShape(64, 8000);
    const [a, b] = [stepCost(s32, shape), stepCost(s128, shape)];
    expect(b.attentionMs).toBe(a.attentionMs);
    expect(b.linearMs).toBe(a.linearMs);
    expect(b.flops).toBe(a.flops);
    expect(b.bytes).toBe(a.bytes);
  });

  it('a maximum the KV cache cannot hold is refused, naming the capacity', () => {
    expect(() => at(131_072, { numGpuBlocksOverride: 4096 })).toThrow(/max-model-len 131072 exceeds the KV cache capacity of 65536 tokens/);
  });
});
