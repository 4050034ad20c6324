// Hugging Face config.json shapes (DeepSeek-V3, gpt-oss, Gemma 3, Qwen3, Qwen2-MoE, Llama 4) read into profiles, and parameter counts of the catalog.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../errors.js';
import { MODELS } from './catalog.js';
import { kvBytesPerToken } from './config.js';
import { fromHfConfig, paramBreakdown } from './profile.js';

// Small inline configs in the shapes the real config.json files have (keys as published, sizes shrunk).
const deepseekV3 = {
  architectures: ['DeepseekV3ForCausalLM'], model_type: 'deepseek_v3', quantization_config: { quant_method: 'fp8', fmt: 'e4m3', weight_block_size: [128, 128] }, hidden_size: 7168, intermediate_size: 18432, moe_intermediate_size: 2048,
  num_hidden_layers: 61, num_attention_heads: 128, num_key_value_heads: 128, n_routed_experts: 256, n_shared_experts: 1,
  num_experts_per_tok: 8, first_k_dense_replace: 3, kv_lora_rank: 512, q_lora_rank: 1536, qk_rope_head_dim: 64,
  qk_nope_head_dim: 128, v_head_dim: 128, vocab_size: 129280, max_position_embeddings: 163840, tie_word_embeddings: false,
};
const gptOss = {
  model_type: 'gpt_oss', hidden_size: 2880, intermediate_size: 2880, num_hidden_layers: 4, num_attention_heads: 64, num_key_value_heads: 8,
  head_dim: 64, num_local_experts: 32, num_experts_per_tok: 4, sliding_window: 128, vocab_size: 201088, max_position_embeddings: 131072,
  layer_types: ['sliding_attention', 'full_attention', 'sliding_attention', 'full_attention'],
};
const gemma3 = {
  architectures: ['Gemma3ForConditionalGeneration'], model_type: 'gemma3',
  text_config: { model_type: 'gemma3_text', hidden_size: 5376, intermediate_size: 21504, num_hidden_layers: 62, num_attention_heads: 32, num_key_value_heads: 16, head_dim: 128, sliding_window: 1024, sliding_window_pattern: 6 },
  vision_config: { hidden_size: 1152, num_hidden_layers: 27 },
};
const qwen3Moe = {
  model_type: 'qwen3_moe', hidden_size: 4096, intermediate_size: 12288, moe_intermediate_size: 1536, num_hidden_layers: 94, num_attention_heads: 64,
  num_key_value_heads: 4, head_dim: 128, num_experts: 128, num_experts_per_tok: 8, vocab_size: 151936, max_position_embeddings: 40960,
  sliding_window: null, use_sliding_window: false, tie_word_embeddings: false,
};

describe('fromHfConfig', () => {
  it('DeepSeek-V3: MLA latent KV (61 × 576 × 2 B), one shared expert, three dense layers, 671 B / 37 B active', () => {
    const m = fromHfConfig('dsv3', deepseekV3);
    expect(m.mla).toEqual({ kvLoraRank: 512, qkRopeHeadDim: 64, qkNopeHeadDim: 128, vHeadDim: 128, qLoraRank: 1536 });
    expect(m).toMatchObject({ experts: 256, expertsPerToken: 8, sharedExperts: 1, denseLayers: 3, denseIntermediate: 18432, intermediate: 2048 });
    expect(kvBytesPerToken(m, 'bf16')).toBe(61 * 576 * 2);
    expect(kvBytesPerToken(m, 'bf16', 8)).toBe(61 * 576 * 2); // the latent is replicated, not split over TP
    const p = paramBreakdown(m);
    expect(p.total / 1e9).toBeGreaterThan(665);
    expect(p.total / 1e9).toBeLessThan(677);
    expect(p.activePerToken / 1e9).toBeGreaterThan(36);
    expect(p.activePerToken / 1e9).toBeLessThan(39);
    expect(m).toEqual({ ...MODELS['deepseek-v3'], id: 'dsv3', hfName: undefined, tiedEmbeddings: false });
  });

  it('FP8 scaling from quantization_config: block sizes → block, AutoFP8 and compressed-tensors channel → tensor', () => {
    const mixtral = { model_type: 'mixtral', hidden_size: 4096, intermediate_size: 14336, num_attention_heads: 32, num_key_value_heads: 8, num_hidden_layers: 32, vocab_size: 32000, num_local_experts: 8, num_experts_per_tok: 2 };
    // neuralmagic/Mixtral-8x7B-Instruct-v0.1-FP8 (AutoFP8): per-tensor scales, no weight_block_size.
    expect(fromHfConfig('mx', { ...mixtral, quantization_config: { quant_method: 'fp8', activation_scheme: 'static' } })).toMatchObject({ releasedDtype: 'fp8', fp8Scaling: 'tensor' });
    const ct = (strategy: string) => ({ ...mixtral, quantization_config: { quant_method: 'compressed-tensors', config_groups: { group_0: { weights: { num_bits: 8, type: 'float', strategy } } } } });
    expect(fromHfConfig('mx', ct('channel'))).toMatchObject({ releasedDtype: 'fp8', fp8Scaling: 'tensor' });
    expect(fromHfConfig('mx', ct('block'))).toMatchObject({ releasedDtype: 'fp8', fp8Scaling: 'block' });
    expect(fromHfConfig('dsv3', deepseekV3).fp8Scaling).toBe('block');
    expect(fromHfConfig('mx', mixtral).fp8Scaling).toBeUndefined();
  });

  it('gpt-oss: layer_types give the sliding layers and the 128-token window', () => {
    const m = fromHfConfig('oss', gptOss);
    expect(m).toMatchObject({ slidingWindow: 128, slidingLayers: 2, experts: 32, expertsPerToken: 4, headDim: 64 });
    const full = fromHfConfig('oss', { ...gptOss, layer_types: ['full_attention', 'full_attention', 'full_attention', 'full_attention'] });
    expect(full.slidingLayers).toBeUndefined();
  });

  it('Gemma 3: reads text_config, every 6th layer global (52 of 62 sliding), defaults for keys the file omits', () => {
    const m = fromHfConfig('g3', gemma3);
    expect(m).toMatchObject({ layers: 62, hidden: 5376, heads: 32, kvHeads: 16, headDim: 128, slidingWindow: 1024, slidingLayers: 52, vocab: 262208, tiedEmbeddings: true });
    expect(paramBreakdown(m).total / 1e9).toBeCloseTo(27.0, 0);
    // The newer form of the same file lists layer_types instead of the pattern.
    const types = Array.from({ length: 62 }, (_, i) => ((i + 1) % 6 === 0 ? 'full_attention' : 'sliding_attention'));
    const { sliding_window_pattern: _, ...text } = gemma3.text_config;
    expect(fromHfConfig('g3', { ...gemma3, text_config: { ...text, layer_types: types } }).slidingLayers).toBe(52);
  });

  it('Qwen3-MoE: experts from num_experts, per-expert width from moe_intermediate_size, no window when use_sliding_window is false', () => {
    const m = fromHfConfig('q', qwen3Moe);
    expect(m).toMatchObject({ experts: 128, expertsPerToken: 8, intermediate: 1536 });
    expect(m.slidingWindow).toBeUndefined();
    expect(m.sharedExperts).toBeUndefined();
    const p = paramBreakdown(m);
    expect(p.total / 1e9).toBeCloseTo(235, -1);
    expect(p.activePerToken / 1e9).toBeCloseTo(22, 0);
    // The same config with the window on (Qwen2 style) and sliding_window on every layer.
    expect(fromHfConfig('q', { ...qwen3Moe, sliding_window: 4096, use_sliding_window: true })).toMatchObject({ slidingWindow: 4096, slidingLayers: 94 });
  });

  it('Qwen2-MoE shared_expert_intermediate_size and Llama 4 (text_config, shared expert, chunked attention)', () => {
    const q2 = fromHfConfig('q2', { hidden_size: 3584, num_hidden_layers: 28, num_attention_heads: 28, num_key_value_heads: 4, intermediate_size: 18944, moe_intermediate_size: 2560, shared_expert_intermediate_size: 20480, num_experts: 64, num_experts_per_tok: 8, vocab_size: 151936 });
    expect(q2).toMatchObject({ sharedExperts: 1, sharedExpertIntermediate: 20480 });
    expect(paramBreakdown(q2).total / 1e9).toBeCloseTo(57.4, 0);
    const scout = fromHfConfig('scout', { model_type: 'llama4', text_config: { model_type: 'llama4_text', hidden_size: 5120, intermediate_size: 8192, intermediate_size_mlp: 16384, num_hidden_layers: 48, num_attention_heads: 40, num_key_value_heads: 8, head_dim: 128, num_local_experts: 16, num_experts_per_tok: 1, interleave_moe_layer_step: 1, vocab_size: 202048, attention_chunk_size: 8192, max_position_embeddings: 10485760 } });
    expect(scout).toMatchObject({ sharedExperts: 1, slidingWindow: 8192, slidingLayers: 36 });
    expect(scout).toEqual({ ...MODELS['llama-4-scout'], id: 'scout', hfName: undefined, tiedEmbeddings: false });
    // The published no_rope_layers list (1 = RoPE + chunked, every 4th 0), and the empty list some copies carry.
    const text = { model_type: 'llama4_text', hidden_size: 64, intermediate_size: 32, num_hidden_layers: 8, num_attention_heads: 4, num_key_value_heads: 2, num_local_experts: 4, num_experts_per_tok: 1, vocab_size: 100, attention_chunk_size: 8192 };
    expect(fromHfConfig('l4', { ...text, no_rope_layers: [1, 1, 1, 0, 1, 1, 1, 0] }).slidingLayers).toBe(6);
    expect(fromHfConfig('l4', { ...text, no_rope_layers: [] }).slidingLayers).toBe(6);
  });

  it('a config with missing or contradictory fields is a usage error naming the file and the key', () => {
    expect(() => fromHfConfig('bad', { hidden_size: 10 })).toThrow(UsageError);
    expect(() => fromHfConfig('bad', { hidden_size: 10 })).toThrow(/bad: config.json has no numeric "num_attention_heads"/);
    expect(() => fromHfConfig('neg', { ...gptOss, sliding_window: 1.5 })).toThrow(/neg: config.json: slidingWindow/);
  });
});

describe('parameter counts of the catalog against the published sizes (billions, total / active)', () => {
  const published: Record<string, [number, number?]> = {
    'llama-2-7b': [6.74], 'llama-2-13b': [13.0], 'llama-2-70b': [69.0], 'qwen3-8b': [8.2], 'qwen3-32b': [32.8],
    'qwen3-235b-a22b': [235, 22], 'deepseek-v3': [671, 37], 'deepseek-r1': [671, 37], 'kimi-k2': [1030, 32.5],
    'gpt-oss-20b': [20.9, 4.2], 'gpt-oss-120b': [116.8, 5.7], 'llama-4-scout': [109, 17], 'gemma-3-12b': [11.8], 'gemma-3-27b': [27.0],
    'mistral-nemo': [12.2],
  };
  for (const [id, [total, active]] of Object.entries(published))
    it(id, () => {
      const p = paramBreakdown(MODELS[id]);
      expect(Math.abs(p.total / 1e9 - total) / total).toBeLessThan(0.03);
      if (active !== undefined) expect(Math.abs(p.activePerToken / 1e9 - active) / active).toBeLessThan(0.05);
    });
});
