// Roofline cost model and parameter estimates.
import { describe, expect, it } from 'vitest';
import { resolveEngine } from './config.js';
import { decodeShape, expectedExpertsTouched, prefillShape, stepCost } from './cost.js';
import { paramBreakdown } from './profile.js';
import { MODELS } from './catalog.js';

describe('cost model', () => {
  it('parameter estimates match the published sizes', () => {
    expect(paramBreakdown(MODELS['llama-3.1-8b']).total / 1e9).toBeCloseTo(8.03, 1);
    expect(paramBreakdown(MODELS['llama-3.1-70b']).total / 1e9).toBeCloseTo(70.6, 0);
    const mixtral = paramBreakdown(MODELS['mixtral-8x7b']);
    expect(mixtral.total / 1e9).toBeCloseTo(46.7, 0);
    expect(mixtral.activePerToken / 1e9).toBeCloseTo(12.9, 0);
    const qwen3 = paramBreakdown(MODELS['qwen3-30b-a3b']);
    expect(qwen3.total / 1e9).toBeCloseTo(30.5, 0);
    expect(qwen3.activePerToken / 1e9).toBeCloseTo(3.3, 0);
  });

  it('MoE: batch 1 touches top-k experts, large batches touch nearly all', () => {
    expect(expectedExpertsTouched(8, 2, 1)).toBeCloseTo(2, 6);
    expect(expectedExpertsTouched(8, 2, 64)).toBeGreaterThan(7.99);
    const spec = resolveEngine({ model: 'mixtral-8x7b', tp: 2 });
    expect(stepCost(spec, decodeShape(64, 512)).memoryMs).toBeGreaterThan(2.5 * stepCost(spec, decodeShape(1, 512)).memoryMs);
  });

  it('decode is bandwidth-bound and prefill compute-bound', () => {
    const spec = resolveEngine({});
    const d = stepCost(spec, decodeShape(1, 1000));
    expect(d.memoryMs).toBeGreaterThan(d.computeMs * 10);
    const p = stepCost(spec, prefillShape(4096));
    expect(p.computeMs).toBeGreaterThan(p.memoryMs * 3);
  });

  it('tensor parallelism splits weights and adds all-reduce time', () => {
    const one = resolveEngine({ model: 'llama-3.1-70b', tp: 2 });
    const four = resolveEngine({ model: 'llama-3.1-70b', tp: 4 });
    expect(four.weightBytesPerGpu * 2).toBeCloseTo(one.weightBytesPerGpu, 0);
    expect(stepCost(four, decodeShape(1, 100)).commMs).toBeGreaterThan(0);
    expect(stepCost(four, decodeShape(1, 100)).totalMs).toBeLessThan(stepCost(one, decodeShape(1, 100)).totalMs);
  });
});
