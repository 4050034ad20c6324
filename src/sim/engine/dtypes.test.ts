// Precisions: FP4 bytes, the kernel path per GPU (native vs dequantize to BF16) and the peaks it implies.
import { describe, expect, it } from 'vitest';
import { GPUS, MODELS } from './catalog.js';
import { resolveEngine } from './config.js';
import { DEQUANT_EFFICIENCY, kernelPath, modelPeakTflops, peakTflops, weightBytes } from './dtypes.js';
import { paramBreakdown } from './profile.js';

describe('precisions and kernel paths', () => {
  it('FP4 runs natively on Blackwell and (MXFP4 only) on MI355X, and dequantizes to BF16 elsewhere', () => {
    for (const g of ['b200', 'b300', 'gb200']) {
      expect(kernelPath(GPUS[g], 'nvfp4'), g).toBe('native');
      expect(kernelPath(GPUS[g], 'mxfp4'), g).toBe('native');
    }
    expect(kernelPath(GPUS.mi355x, 'mxfp4')).toBe('native');
    expect(kernelPath(GPUS.mi355x, 'nvfp4')).toBe('dequant-bf16');
    for (const g of ['h100', 'h200', 'mi300x', 'a100-80gb']) expect(kernelPath(GPUS[g], 'mxfp4'), g).toBe('dequant-bf16');
    expect(kernelPath(GPUS['a100-80gb'], 'fp8')).toBe('dequant-bf16');
    expect(kernelPath(GPUS.h100, 'fp8')).toBe('native');
    expect(peakTflops(GPUS.b300, 'nvfp4')).toBe(13500);
    expect(peakTflops(GPUS.h100, 'nvfp4')).toBeCloseTo(989 * DEQUANT_EFFICIENCY, 6);
    expect(peakTflops(GPUS['a100-80gb'], 'fp8')).toBeCloseTo(312 * DEQUANT_EFFICIENCY, 6);
  });

  it('NVFP4 DeepSeek-R1: experts at 4.5 bits, the rest FP8, embeddings 16-bit; smaller than FP8, larger than all-FP4', () => {
    const p = paramBreakdown(MODELS['deepseek-r1']);
    const nv = weightBytes(p, 'nvfp4');
    expect(nv).toBeCloseTo(p.routedExperts * (4.5 / 8) + (p.shared - p.embedding) * 1 + p.embedding * 2, 0);
    expect(nv / 1e9).toBeGreaterThan(370);
    expect(nv / 1e9).toBeLessThan(420);
    expect(nv).toBeLessThan(weightBytes(p, 'fp8'));
  });

  it('an MoE with FP4 experts and BF16 attention runs at the FLOP-weighted harmonic mean of the two peaks', () => {
    const m = MODELS['gpt-oss-120b'];
    const p = paramBreakdown(m);
    const mixed = modelPeakTflops(GPUS.b200, 'mxfp4', p, m.expertsPerToken!, m.layers);
    expect(mixed).toBeGreaterThan(GPUS.b200.bf16Tflops);
    expect(mixed).toBeLessThan(GPUS.b200.fp4Tflops!);
    const spec = resolveEngine({ gpu: 'gb200', model: 'gpt-oss-120b', kvDtype: 'fp8' });
    expect(spec.kernelPath).toBe('native');
    expect(resolveEngine({ gpu: 'h100', model: 'gpt-oss-120b' }).kernelPath).toBe('dequant-bf16');
  });
});
