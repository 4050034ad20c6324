// KV size of MLA and sliding-window models, weight bytes and compute peaks per dtype, and the engine's block accounting for sliding layers.
import { describe, expect, it } from 'vitest';
import { GPUS, MODELS } from './catalog.js';
import { kvBytesForContext, kvBytesPerToken, kvEquivalentTokens, resolveEngine } from './config.js';
import { decodeShape, stepCost, weightBytesReadPerGpu } from './cost.js';
import { peakTflops, weightBytes } from './dtypes.js';
import { createEngine } from './engine.js';
import { paramBreakdown } from './profile.js';

describe('KV bytes', () => {
  it('DeepSeek-V3 (MLA): 61 × (512 + 64) × 2 = 70,272 B per token in BF16, ~69 MiB per 1K tokens, the same on every TP rank', () => {
    expect(kvBytesPerToken(MODELS['deepseek-v3'], 'bf16')).toBe(70_272);
    expect(kvBytesPerToken(MODELS['deepseek-v3'], 'fp8')).toBe(35_136);
    expect((kvBytesPerToken(MODELS['deepseek-v3'], 'bf16') * 1024) / 1024 ** 2).toBeCloseTo(68.6, 1);
    const spec = resolveEngine({ model: 'deepseek-v3', gpu: 'h200', tp: 8, weightDtype: 'fp8' });
    expect(spec.kvBytesPerTokenPerGpu).toBe(70_272);
    // As full multi-head attention (128 heads × 128 × 2 for K and V) it would be ~57× larger.
    expect((2 * 61 * 128 * 128 * 2) / 70_272).toBeGreaterThan(25);
  });

  it('gpt-oss-120b: KV per request grows at half the rate past the 128-token window (18 of 36 layers slide)', () => {
    const spec = resolveEngine({ model: 'gpt-oss-120b', weightDtype: 'mxfp4', numGpuBlocksOverride: 1000 });
    const perLayerToken = 2 * 8 * 64 * 2;
    const formula = (t: number) => perLayerToken * (18 * t + 18 * Math.min(t, 128));
    for (const t of [1, 64, 128, 129, 1000, 4096, 100_000]) expect(kvBytesForContext(spec, t)).toBe(formula(t));
    const slope = (a: number, b: number) => (kvBytesForContext(spec, b) - kvBytesForContext(spec, a)) / (b - a);
    expect(slope(0, 128)).toBe(36 * perLayerToken);
    expect(slope(128, 4096)).toBe(18 * perLayerToken);
    expect(kvBytesForContext(spec, 4096)).toBeLessThan(0.6 * 4096 * spec.kvBytesPerTokenPerGpu);
    // Every layer of Mistral-7B-v0.1 slides: KV stops growing at 4,096 tokens.
    const mistral = resolveEngine({ model: 'mistral-7b-v0.1' });
    expect(kvBytesForContext(mistral, 32_000)).toBe(kvBytesForContext(mistral, 4096));
    expect(kvEquivalentTokens(MODELS['llama-3.1-8b'], 5000)).toBe(5000);
  });

  it('a decode step reads the capped KV: bytes = weights + KV(context) per GPU', () => {
    const spec = resolveEngine({ model: 'gpt-oss-120b', weightDtype: 'mxfp4', numGpuBlocksOverride: 1000 });
    const c = stepCost(spec, decodeShape(4, 10_000));
    expect(c.bytes).toBeCloseTo(weightBytesReadPerGpu(spec, 4) + 4 * kvBytesForContext(spec, 10_001), -2);
  });
});

describe('weight bytes a step reads', () => {
  it('gpt-oss-120b MXFP4 at batch 1: BF16 attention and embeddings + 4 of 128 MXFP4 experts per layer', () => {
    const spec = resolveEngine({ model: 'gpt-oss-120b', weightDtype: 'mxfp4', numGpuBlocksOverride: 1000 });
    const p = spec.params;
    const expected = p.shared * 2 + (4 / 128) * p.routedExperts * (4.25 / 8);
    expect(weightBytesReadPerGpu(spec, 1) / expected).toBeCloseTo(1, 2);
    // A large batch touches every expert: the whole checkpoint.
    expect(weightBytesReadPerGpu(spec, 4096) / spec.weightBytesPerGpu).toBeCloseTo(1, 2);
  });
});

describe('engine block accounting with sliding layers', () => {
  it('a 3,000-token gpt-oss-120b prompt holds ceil((18·3000 + 18·128) / 36 / 16) = 98 blocks, not 188', () => {
    const spec = resolveEngine({ model: 'gpt-oss-120b', weightDtype: 'mxfp4', numGpuBlocksOverride: 1000, prefixCaching: false });
    const engine = createEngine(spec);
    expect(engine.add({ id: 'a', promptTokens: 3000, outputTokens: 4 })).toBeUndefined();
    engine.step();
    expect(Math.round(engine.counters().kvUsage * 1000)).toBe(Math.ceil((18 * 3000 + 18 * 128) / 36 / 16));
    const dense = createEngine(resolveEngine({ model: 'llama-3.1-8b', numGpuBlocksOverride: 1000, prefixCaching: false }));
    dense.add({ id: 'a', promptTokens: 3000, outputTokens: 4 });
    dense.step();
    expect(Math.round(dense.counters().kvUsage * 1000)).toBe(Math.ceil(3000 / 16));
  });

  it('max_model_len follows the capped KV: 1,000 blocks hold a 31,872-token gpt-oss sequence', () => {
    const spec = resolveEngine({ model: 'gpt-oss-120b', weightDtype: 'mxfp4', numGpuBlocksOverride: 1000 });
    // 16,000 equivalent tokens = (18·T + 18·128) / 36 → T = 2·16,000 − 128
    expect(spec.maxModelLen).toBe(2 * 16_000 - 128);
    const engine = createEngine(spec);
    expect(engine.add({ id: 'long', promptTokens: 30_000, outputTokens: 10 })).toBeUndefined();
    for (let i = 0; i < 20 && engine.hasWork(); i++) engine.step();
    expect(engine.hasWork()).toBe(false);
    expect(engine.counters().preemptions).toBe(0);
  });

  it('prefix caching reuses nearly the whole shared prompt of a sliding-window model (Gemma 3: 40 of 48 layers slide 1,024)', () => {
    const spec = resolveEngine({ model: 'gemma-3-12b', numGpuBlocksOverride: 2000 });
    const engine = createEngine(spec);
    const hashes = Array.from({ length: 200 }, (_, i) => i + 1);
    engine.add({ id: 'a', promptTokens: 3200, outputTokens: 2, blockHashes: hashes });
    while (engine.hasWork()) engine.step();
    engine.add({ id: 'b', promptTokens: 3200, outputTokens: 2, blockHashes: hashes });
    const first = engine.step()!;
    // 86 pool blocks hold the KV of 1,024 + (86·16 − 1,024)·48/8 = 3,136 tokens; 87 would need 202 prompt blocks of the 200.
    expect(first.started[0].cachedTokens).toBe(3136);
    expect(Math.round(engine.counters().kvUsage * 2000)).toBe(Math.ceil(((8 * 3200 + 40 * 1024) / 48) / 16));
    while (engine.hasWork()) engine.step();
  });
});

describe('dtypes', () => {
  it('weights: MXFP4 experts + BF16 rest for gpt-oss-120b ≈ 65 GB; AWQ int4 Llama-3.1-8B ≈ 5.7 GB; fp32 = 2 × bf16', () => {
    expect(weightBytes(paramBreakdown(MODELS['gpt-oss-120b']), 'mxfp4') / 1e9).toBeCloseTo(65, -1);
    const llama = paramBreakdown(MODELS['llama-3.1-8b']);
    // hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 is a 5.73 GB checkpoint (group 128, 16-bit embeddings and LM head).
    expect(Math.abs(weightBytes(llama, 'int4') / 1e9 - 5.73) / 5.73).toBeLessThan(0.05);
    expect(weightBytes(llama, 'fp32')).toBeCloseTo(2 * weightBytes(llama, 'bf16'), -3);
    expect(weightBytes(llama, 'int8')).toBeCloseTo(weightBytes(llama, 'fp8'), -3);
    expect(resolveEngine({ weightDtype: 'int8' }).weightBytesPerGpu).toBeCloseTo(weightBytes(llama, 'int8'), -3);
  });

  it('compute: FP8 and INT8 on their tensor cores where the GPU has them, else dequantized to BF16 (x 0.8); fp32 on TF32 at half BF16', () => {
    expect(peakTflops(GPUS.h100, 'fp8')).toBe(1979);
    expect(peakTflops(GPUS['a100-80gb'], 'fp8')).toBeCloseTo(312 * 0.8, 6);
    expect(peakTflops(GPUS['a100-80gb'], 'int8')).toBe(624);
    expect(peakTflops(GPUS.a10, 'fp8')).toBeCloseTo(125 * 0.8, 6);
    expect(peakTflops(GPUS.mi300x, 'fp32')).toBeCloseTo(653.7, 1);
    const fp8 = resolveEngine({ weightDtype: 'fp8', mfu: 0.5 });
    expect(fp8.flopsPerSec).toBeCloseTo(1979e12 * 0.5, -9);
    expect(resolveEngine({ weightDtype: 'int4', mfu: 0.5 }).flopsPerSec).toBeCloseTo(989e12 * 0.8 * 0.5, -9);
  });
});
