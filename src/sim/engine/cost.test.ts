// Roofline cost model and parameter estimates.
import { describe, expect, it } from 'vitest';
import { resolveEngine } from './config.js';
import { attentionFlops, decodeShape, expectedExpertsTouched, prefillShape, stepCost } from './cost.js';
import { matmulScale } from './dtypes.js';
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

  it('attention runs at the KV cache precision\'s peak: BF16 beside FP8 weights, FP8 only with an FP8 cache', () => {
    // A 32k-token prompt: attention is compute-bound, so its time is FLOPs / (peak · mfu) plus the per-sequence cost.
    const shape = prefillShape(32_000);
    const attnMs = (o: Record<string, unknown>) => {
      const spec = resolveEngine({ model: 'llama-3.1-8b', gpu: 'h100', mfu: 0.5, ...o });
      return { spec, ms: stepCost(spec, shape).attentionMs - (spec.model.layers * spec.attnSeqOverheadUs) / 1000 };
    };
    const bf16 = attnMs({});
    const fp8w = attnMs({ weightDtype: 'fp8' });
    const fp8kv = attnMs({ weightDtype: 'fp8', kvDtype: 'fp8' });
    expect(bf16.ms).toBeCloseTo((attentionFlops(bf16.spec, shape) / (989e12 * 0.5)) * 1000, 6);
    expect(fp8w.ms).toBeCloseTo(bf16.ms, 6); // FP8 weights do not make BF16 attention faster
    expect(fp8kv.ms).toBeCloseTo((attentionFlops(fp8kv.spec, shape) / (1979e12 * 0.5)) * 1000, 6);
    // A100 has no FP8 tensor cores: an FP8 cache is dequantized and multiplied in BF16 (at the A100's matmul share).
    const a100 = resolveEngine({ gpu: 'a100-80gb', kvDtype: 'fp8', mfu: 0.5 });
    expect(a100.attnFlopsPerSec).toBeCloseTo(312e12 * 0.5 * matmulScale(a100.gpu), -9);
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

describe('step physics (docs/sim.md#fidelity)', () => {
  it('decode attention: each extra sequence costs more than its KV bytes at the weights bandwidth (per-sequence kernel cost, lower KV efficiency)', () => {
    const spec = resolveEngine({});
    const kvOnlyMs = (batch: number, ctx: number): number => ((batch * (ctx + 1) * spec.kvBytesPerTokenPerGpu) / spec.bytesPerSec) * 1000;
    const d1 = stepCost(spec, decodeShape(1, 700));
    const d64 = stepCost(spec, decodeShape(64, 700));
    // Growth from batch 1 to 64 beyond KV bytes read at the weights' bandwidth: attention and per-sequence costs.
    const extra = d64.totalMs - d1.totalMs - (kvOnlyMs(64, 700) - kvOnlyMs(1, 700));
    expect(extra).toBeGreaterThan(0.02 * d1.totalMs);
    expect(d64.attentionMs).toBeGreaterThan(d1.attentionMs * 20);
  });

  it('tensor parallel: a small model at TP2 is slower than half its TP1 decode (all-reduce latency floor per layer)', () => {
    const one = resolveEngine({ tp: 1 });
    const two = resolveEngine({ tp: 2 });
    const t1 = stepCost(one, decodeShape(16, 700)).totalMs;
    const c2 = stepCost(two, decodeShape(16, 700));
    expect(c2.totalMs / t1).toBeGreaterThan(0.6);
    // Latency-bound: at batch 16 the bandwidth term of 2·32 all-reduces of 16·4096·2 bytes is under a third of it.
    expect(c2.commMs).toBeGreaterThan(2 * one.model.layers * (two.allReduceLatencyUs / 1000) * 0.99);
    expect(two.allReduceLatencyUs).toBeGreaterThan(5);
  });

  it('MoE: routing costs per layer; under TP a prefill costs the total expert work, under EP the busiest GPU\'s', () => {
    const spec = resolveEngine({ model: 'mixtral-8x7b', tp: 2 });
    expect(stepCost(spec, decodeShape(1, 100)).moeMs).toBeCloseTo((32 * spec.moeLayerOverheadUs) / 1000, 9);
    expect(spec.moeLayerOverheadUs).toBeGreaterThan(0);
    // TP: every GPU holds a slice of every expert and the fused kernel spreads all experts' tiles over its SMs.
    const p = stepCost(spec, prefillShape(2048));
    const balanced = (2 * spec.params.activePerToken * 2048) / spec.tp;
    expect(p.flops - (4 * 32 * 32 * 128 * ((2048 * 2049) / 2)) / spec.tp).toBeCloseTo(balanced, -3);
    // EP: each GPU owns whole experts, so the busiest GPU's share scales its expert FLOPs.
    const ep = resolveEngine({ model: 'mixtral-8x7b', tp: 2, ep: 2 });
    expect(stepCost(ep, prefillShape(2048)).flops - (4 * 32 * 32 * 128 * ((2048 * 2049) / 2)) / ep.tp).toBeGreaterThan(balanced * 1.03);
  });
});
