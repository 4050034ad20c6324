// Communication terms of issue 31's seventh pass: MiniMax-M2's QK norm over all heads (one more all-reduce per layer
// under attention TP) and SGLang's fused all-reduce + RMSNorm on Blackwell (the latency floor × 8.7/13.5).
import { describe, expect, it } from 'vitest';
import { resolveEngine, type EngineOptions } from './config.js';
import { allReduceMs, parallelCommMs, qkNormCommMs } from './comm.js';
import { fromHfConfig } from './profile.js';
import { withEngineProfile } from './tuning.js';
import { FUSED_ALL_REDUCE_RATIO } from './scheduling.js';

const withPreset = (o: EngineOptions & { engine?: string }) => resolveEngine(withEngineProfile(o));

describe('QK norm over all heads (MiniMax-M2)', () => {
  it('adds one small all-reduce per layer under TP, none at TP1 or with DP attention, none for per-head norms', () => {
    const minimax = resolveEngine({ gpu: 'h100', model: 'minimax-m2.5', tp: 8, ep: 8 });
    expect(minimax.model.qkNormAcrossHeads).toBe(true);
    // 2 FP32 sums per token: the latency floor dominates, 62 layers × 15 µs on NVLink H100.
    expect(qkNormCommMs(minimax, 100)).toBeCloseTo(62 * allReduceMs(minimax, 100 * 8), 9);
    expect(qkNormCommMs(minimax, 100)).toBeGreaterThan(0.9);
    expect(parallelCommMs(minimax, 100) - 2 * 62 * allReduceMs(minimax, 100 * 3072 * 2)).toBeCloseTo(qkNormCommMs(minimax, 100), 9);
    expect(qkNormCommMs(resolveEngine({ gpu: 'h100', model: 'minimax-m2.5', tp: 8, dpAttention: true }), 100)).toBe(0);
    expect(qkNormCommMs(resolveEngine({ gpu: 'h100', model: 'qwen3-235b-a22b', tp: 8 }), 100)).toBe(0);
  });

  it('is read from config.json (use_qk_norm with qk_norm_type per_layer); a per-head norm is not', () => {
    const base = { hidden_size: 3072, num_attention_heads: 48, num_key_value_heads: 8, head_dim: 128, num_hidden_layers: 62, vocab_size: 200064, intermediate_size: 1536, num_local_experts: 256, num_experts_per_tok: 8 };
    expect(fromHfConfig('m2', { ...base, use_qk_norm: true, qk_norm_type: 'per_layer' }).qkNormAcrossHeads).toBe(true);
    expect(fromHfConfig('m2h', { ...base, use_qk_norm: true, qk_norm_type: 'per_head' }).qkNormAcrossHeads).toBeUndefined();
    expect(fromHfConfig('plain', base).qkNormAcrossHeads).toBeUndefined();
  });
});

describe('fused all-reduce on Blackwell (--all-reduce-fusion, SGLang preset)', () => {
  it('SGLang MoE models on B200 get 8.7/13.5 of the all-reduce floor; Hopper, dense models, DP attention and vLLM do not', () => {
    expect(FUSED_ALL_REDUCE_RATIO).toBeCloseTo(0.644, 3);
    const floor = 2.5 * 6; // B200 NVLink link latency 6 µs
    expect(withPreset({ engine: 'sglang', gpu: 'b200', model: 'deepseek-r1', tp: 8 }).allReduceLatencyUs).toBeCloseTo(floor * FUSED_ALL_REDUCE_RATIO, 9);
    expect(withPreset({ engine: 'sglang', gpu: 'b200', model: 'qwen3-235b-a22b', tp: 8 }).allReduceLatencyUs).toBeCloseTo(floor * FUSED_ALL_REDUCE_RATIO, 9);
    expect(withPreset({ engine: 'sglang', gpu: 'b200', model: 'llama-3.3-70b', tp: 8 }).allReduceLatencyUs).toBe(floor);
    expect(withPreset({ engine: 'sglang', gpu: 'b200', model: 'deepseek-r1', tp: 8, dpAttention: true }).allReduceLatencyUs).toBe(floor);
    expect(withPreset({ engine: 'sglang', gpu: 'h200', model: 'deepseek-r1', tp: 8 }).allReduceLatencyUs).toBe(15);
    expect(withPreset({ engine: 'vllm', gpu: 'b200', model: 'deepseek-r1', tp: 8 }).allReduceLatencyUs).toBe(floor);
    // The flag given wins over the preset, and an explicit latency wins over both.
    expect(withPreset({ engine: 'sglang', gpu: 'b200', model: 'deepseek-r1', tp: 8, allReduceFusion: false }).allReduceLatencyUs).toBe(floor);
    expect(withPreset({ engine: 'sglang', gpu: 'b200', model: 'deepseek-r1', tp: 8, allReduceLatencyUs: 20 }).allReduceLatencyUs).toBe(20);
  });

  it('shortens a B200 decode step by the saved floor on every all-reduce', () => {
    const fused = withPreset({ engine: 'sglang', gpu: 'b200', model: 'deepseek-r1', tp: 8 });
    const plain = withPreset({ engine: 'sglang', gpu: 'b200', model: 'deepseek-r1', tp: 8, allReduceFusion: false });
    const saved = parallelCommMs(plain, 64) - parallelCommMs(fused, 64);
    expect(saved).toBeCloseTo((2 * 61 * 15 * (1 - FUSED_ALL_REDUCE_RATIO)) / 1000, 6);
  });
});
