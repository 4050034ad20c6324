// Issue 31 kernel rates: block-scaled FP8 experts without block-scaled MMA, and each GPU's measured matmul efficiency.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GPUS } from './catalog.js';
import { resolveEngine } from './config.js';
import { stepCost, prefillShape, linearFlopsParts } from './cost.js';
import { blockScaledDenseRatio, expertBlockScaleRatio, matmulScale, REFERENCE_MATMUL_EFFICIENCY } from './dtypes.js';

describe('block-scaled FP8 routed experts', () => {
  it('run at the BF16 rate on Hopper and MI300X, at the FP8 rate where the tensor cores scale blocks, and other formats are untouched', () => {
    expect(expertBlockScaleRatio(GPUS.h100, 'fp8')).toBeCloseTo(989 / 1979, 6);
    expect(expertBlockScaleRatio(GPUS.h200, 'fp8')).toBeCloseTo(989 / 1979, 6);
    expect(expertBlockScaleRatio(GPUS.mi300x, 'fp8')).toBeCloseTo(0.5, 3);
    for (const g of ['b200', 'b300', 'gb200', 'mi355x']) expect(expertBlockScaleRatio(GPUS[g], 'fp8'), g).toBe(1);
    // A100 has no FP8 tensor cores: the weight-only dequantize path already runs at the BF16 rate.
    expect(expertBlockScaleRatio(GPUS['a100-80gb'], 'fp8')).toBe(1);
    for (const d of ['bf16', 'mxfp4', 'nvfp4', 'int8'] as const) expect(expertBlockScaleRatio(GPUS.h100, d), d).toBe(1);
  });

  it('a compute-bound DeepSeek-R1 prefill on 8×H200 spends twice the expert time, and the dense part is unchanged', () => {
    const spec = resolveEngine({ gpu: 'h200', model: 'deepseek-r1', tp: 8 });
    expect(spec.weightDtype).toBe('fp8');
    expect(spec.expertScaleRatio).toBeCloseTo(0.5, 2);
    const shape = prefillShape(8192);
    const lin = linearFlopsParts(spec, shape.newTokens);
    const fast = { ...spec, expertScaleRatio: 1 };
    const slowMs = stepCost(spec, shape).linearMs;
    const fastMs = stepCost(fast, shape).linearMs;
    const expertMs = (lin.expert / (spec.flopsPerSec * spec.moeGemmEfficiency)) * 1000;
    // Within 1%: at the FP8 rate the step sits near its weight-read floor, which max() takes when it is higher.
    expect(Math.abs(slowMs - fastMs - expertMs) / expertMs).toBeLessThan(0.01);
    expect(slowMs / fastMs).toBeGreaterThan(1.5);
  });
});

describe('block-scaled FP8 dense layers of MoE checkpoints', () => {
  it('take the experts\' ratio only in an MoE checkpoint; dense FP8 models keep the FP8 rate', () => {
    expect(blockScaledDenseRatio(GPUS.h100, 'fp8', 256)).toBeCloseTo(989 / 1979, 6);
    expect(blockScaledDenseRatio(GPUS.h100, 'fp8', 1)).toBe(1);
    expect(blockScaledDenseRatio(GPUS.b200, 'fp8', 256)).toBe(1);
    expect(blockScaledDenseRatio(GPUS.h100, 'bf16', 128)).toBe(1);
    expect(resolveEngine({ gpu: 'h100', model: 'llama-3.1-8b', weightDtype: 'fp8' }).denseScaleRatio).toBe(1);
  });

  it('a compute-bound DeepSeek-R1 prefill on 8×H200 spends twice the dense time it would at the FP8 rate', () => {
    const spec = resolveEngine({ gpu: 'h200', model: 'deepseek-r1', tp: 8 });
    expect(spec.denseScaleRatio).toBeCloseTo(0.5, 2);
    const shape = prefillShape(8192);
    const lin = linearFlopsParts(spec, shape.newTokens);
    const slowMs = stepCost(spec, shape).linearMs;
    const fastMs = stepCost({ ...spec, denseScaleRatio: 1 }, shape).linearMs;
    const denseFp8Ms = (lin.dense / spec.flopsPerSec) * 1000;
    expect(Math.abs(slowMs - fastMs - denseFp8Ms) / denseFp8Ms).toBeLessThan(0.01);
  });
});

describe('measured matmul efficiency per GPU', () => {
  it('scales compute relative to the H100 where --mfu was fitted; a GPU without a figure takes the H100s', () => {
    expect(matmulScale(GPUS.h100)).toBe(1);
    expect(matmulScale(GPUS.h200)).toBe(1);
    expect(matmulScale(GPUS.mi300x)).toBeCloseTo(0.514 / REFERENCE_MATMUL_EFFICIENCY, 6);
    expect(matmulScale(GPUS.mi355x)).toBeLessThan(matmulScale(GPUS.b200));
    expect(matmulScale(GPUS['a100-80gb'])).toBeGreaterThan(1);
    expect(matmulScale({ ...GPUS.h100, matmulEfficiency: undefined })).toBe(1);
  });

  it('an MI300X prefill step is compute-slower than the same FLOPs at the H100s efficiency, by the ratio', () => {
    const spec = resolveEngine({ gpu: 'mi300x', model: 'llama-3.1-70b', tp: 8 });
    // The same GPU as a profile file that states the H100's efficiency.
    const file = join(mkdtempSync(join(tmpdir(), 'tf-gpu-')), 'mi300x-as-h100.json');
    writeFileSync(file, JSON.stringify({ ...GPUS.mi300x, id: 'mi300x-as-h100', matmulEfficiency: REFERENCE_MATMUL_EFFICIENCY }));
    const asH100 = resolveEngine({ gpu: file, model: 'llama-3.1-70b', tp: 8 });
    expect(spec.flopsPerSec / asH100.flopsPerSec).toBeCloseTo(0.514 / REFERENCE_MATMUL_EFFICIENCY, 6);
    expect(spec.attnFlopsPerSec / asH100.attnFlopsPerSec).toBeCloseTo(0.514 / REFERENCE_MATMUL_EFFICIENCY, 6);
    expect(stepCost(spec, prefillShape(8192)).linearMs).toBeGreaterThan(stepCost(asH100, prefillShape(8192)).linearMs * 1.3);
  });
});
