// Model and GPU profile shapes (zod), parameter estimates, and converting a Hugging Face config.json into a profile.
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { FP8_SCALINGS, WEIGHT_DTYPES, type Fp8Scaling, type WeightDtype } from './dtype-names.js';

const int = z.number().int().positive();

/** Multi-head latent attention (DeepSeek-V2/V3/R1, Kimi K2): K and V are rebuilt from one cached latent per token. */
export const mlaSchema = z.object({
  kvLoraRank: int,
  qkRopeHeadDim: int,
  qkNopeHeadDim: int,
  vHeadDim: int,
  /** Rank of the low-rank query projection; absent = a full hidden → heads·(nope+rope) projection. */
  qLoraRank: int.optional(),
});

export const modelProfileSchema = z
  .object({
    id: z.string().min(1),
    hfName: z.string().optional(),
    layers: int,
    hidden: int,
    heads: int,
    kvHeads: int,
    headDim: int,
    /** Dense MLP width, or the width of one routed expert for MoE models. */
    intermediate: int,
    vocab: int,
    /** Routed experts per MoE layer (absent or 1 = dense). */
    experts: int.optional(),
    expertsPerToken: int.optional(),
    /** Shared experts every token runs in each MoE layer (DeepSeek, Qwen2-MoE, Llama 4), each `sharedExpertIntermediate` wide (default `intermediate`). */
    sharedExperts: z.number().int().nonnegative().optional(),
    sharedExpertIntermediate: int.optional(),
    /** Dense (non-MoE) layers of an MoE model (DeepSeek first_k_dense_replace), with their MLP width (default `intermediate`). */
    denseLayers: z.number().int().nonnegative().optional(),
    denseIntermediate: int.optional(),
    /** Multi-head latent attention; absent = multi-head / grouped-query attention with `kvHeads` heads of `headDim`. */
    mla: mlaSchema.optional(),
    /** Sliding-window attention: `slidingLayers` of the layers (default all) attend to the last `slidingWindow` tokens only. */
    slidingWindow: int.optional(),
    slidingLayers: z.number().int().nonnegative().optional(),
    /**
     * QK RMSNorm over the whole q and k projections, all heads together (MiniMax-M2 `qk_norm_type: per_layer`), not per
     * head: under attention TP each rank holds some heads, so every layer all-reduces the tokens' sums of squares.
     */
    qkNormAcrossHeads: z.boolean().optional(),
    tiedEmbeddings: z.boolean().optional(),
    /** Total parameters; when absent, estimated from the architecture. */
    params: z.number().positive().optional(),
    maxModelLen: int,
    /**
     * Precision the weights were released in (the checkpoint on the hub): the default --weight-dtype. Absent = bf16.
     * DeepSeek-V3/R1 and Kimi K2 ship FP8 (block-scaled), gpt-oss MXFP4 experts (issue 25).
     */
    releasedDtype: z.enum(WEIGHT_DTYPES).optional(),
    /**
     * Weight scaling of the model's FP8 checkpoint (released or the vendor's FP8 re-quantization): `block` (one scale per
     * 128×128 block: DeepSeek-V3/R1, Kimi K2, Qwen3-FP8, MiniMax) or `tensor` (per-tensor or per-channel: AutoFP8 and
     * llm-compressor checkpoints such as Mixtral-8x7B FP8, Llama-4-Maverick FP8). Absent = tensor. --fp8-scaling overrides.
     */
    fp8Scaling: z.enum(FP8_SCALINGS).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.slidingLayers !== undefined && m.slidingLayers > m.layers)
      ctx.addIssue({ code: 'custom', path: ['slidingLayers'], message: `${m.slidingLayers} sliding layers but only ${m.layers} layers` });
    if (m.slidingLayers && m.slidingWindow === undefined)
      ctx.addIssue({ code: 'custom', path: ['slidingWindow'], message: 'slidingLayers needs slidingWindow' });
    if (m.denseLayers !== undefined && m.denseLayers >= m.layers && (m.experts ?? 1) > 1)
      ctx.addIssue({ code: 'custom', path: ['denseLayers'], message: `${m.denseLayers} dense layers leave no MoE layer of ${m.layers}` });
  });
export type ModelProfile = z.infer<typeof modelProfileSchema>;

export const gpuProfileSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  /** Dense (no sparsity) tensor-core peaks: BF16 and FP8 TFLOPS, INT8 TOPS. */
  bf16Tflops: z.number().positive(),
  fp8Tflops: z.number().positive().optional(),
  int8Tops: z.number().positive().optional(),
  /** Dense FP4 tensor-core peak, and the FP4 block formats the tensor cores take natively (others dequantize to BF16). */
  fp4Tflops: z.number().positive().optional(),
  fp4Formats: z.array(z.enum(['nvfp4', 'mxfp4'])).optional(),
  hbmTBps: z.number().positive(),
  memBytes: z.number().positive(),
  bwEfficiency: z.number().gt(0).lte(1),
  /**
   * Measured maximum achievable matmul FLOPS over the BF16 peak (MAMF, best of a brute-force shape search); absent =
   * the H100 SXM's, where --mfu was fitted. Compute rates scale by matmulEfficiency / 0.803 (dtypes.ts matmulScale).
   */
  matmulEfficiency: z.number().gt(0).lte(1).optional(),
  /** Per-GPU interconnect bandwidth (NVLink or PCIe) used for tensor-parallel all-reduce. */
  linkGBps: z.number().positive(),
  linkLatencyUs: z.number().nonnegative(),
  /** Board power limit and idle draw in W, max SM and memory clocks in MHz: only the sim server's DCGM series use them. */
  tdpW: z.number().positive().optional(),
  idleW: z.number().nonnegative().optional(),
  smClockMhz: z.number().positive().optional(),
  memClockMhz: z.number().positive().optional(),
});
export type GpuProfile = z.infer<typeof gpuProfileSchema>;

export interface ParamBreakdown {
  /** Parameters every token uses: attention, embeddings, LM head, dense MLPs, routers, shared experts. */
  shared: number;
  /** Embedding table plus LM head (part of `shared`): quantized checkpoints keep them in 16 bits. */
  embedding: number;
  /**
   * One routed expert's parameters averaged over all layers (moeLayers/layers · one expert), so that
   * layers · experts · perExpertPerLayer is every routed expert (0 for dense models).
   */
  perExpertPerLayer: number;
  /** All routed experts of all MoE layers. */
  routedExperts: number;
  total: number;
  /** Parameters one token touches (shared + top-k routed experts in every MoE layer). */
  activePerToken: number;
}

/**
 * Attention projections of one layer.
 * GQA: 2·hidden·(heads·headDim) + 2·hidden·(kvHeads·headDim);
 * MLA: q (hidden·qLora + qLora·heads·(nope+rope), or hidden·heads·(nope+rope)) + kv down hidden·(kvLora+rope)
 *      + kv up kvLora·heads·(nope+v) + out heads·v·hidden.
 */
export function attentionParamsPerLayer(m: ModelProfile): number {
  const a = m.mla;
  if (!a) return 2 * m.hidden * m.heads * m.headDim + 2 * m.hidden * m.kvHeads * m.headDim;
  const qk = a.qkNopeHeadDim + a.qkRopeHeadDim;
  const q = a.qLoraRank ? m.hidden * a.qLoraRank + a.qLoraRank * m.heads * qk : m.hidden * m.heads * qk;
  return q + m.hidden * (a.kvLoraRank + a.qkRopeHeadDim) + a.kvLoraRank * m.heads * (a.qkNopeHeadDim + a.vHeadDim) + m.heads * a.vHeadDim * m.hidden;
}

/**
 * Attention FLOPs per query-key pair, all layers: QKᵀ and AV at 2 FLOPs per multiply-add,
 * GQA 4·layers·heads·headDim; MLA 2·layers·heads·((nope+rope) + v) (the decompressed form vLLM uses in prefill).
 */
export function attentionFlopsPerPair(m: ModelProfile): number {
  const a = m.mla;
  if (!a) return 4 * m.layers * m.heads * m.headDim;
  return 2 * m.layers * m.heads * (a.qkNopeHeadDim + a.qkRopeHeadDim + a.vHeadDim);
}

/**
 * MLP (SwiGLU/GeGLU) = 3·hidden·width per layer, per expert for MoE; MoE layers add a router hidden·experts and
 * `sharedExperts` always-on experts; dense layers of an MoE model use `denseIntermediate`;
 * embeddings = vocab·hidden, twice unless tied. Norms and biases are ignored (<0.1%).
 */
export function paramBreakdown(m: ModelProfile): ParamBreakdown {
  const mlp = (width: number): number => 3 * m.hidden * width;
  const experts = m.experts ?? 1;
  const moe = experts > 1;
  const denseLayers = moe ? (m.denseLayers ?? 0) : m.layers;
  const moeLayers = m.layers - denseLayers;
  const embed = m.vocab * m.hidden * (m.tiedEmbeddings ? 1 : 2);
  const router = moe ? m.hidden * experts : 0;
  const sharedExperts = moe ? (m.sharedExperts ?? 0) * mlp(m.sharedExpertIntermediate ?? m.intermediate) : 0;
  const denseMlp = mlp(moe ? (m.denseIntermediate ?? m.intermediate) : m.intermediate);
  let shared = m.layers * attentionParamsPerLayer(m) + denseLayers * denseMlp + moeLayers * (router + sharedExperts) + embed;
  let perExpertPerLayer = moe ? (mlp(m.intermediate) * moeLayers) / m.layers : 0;
  const estimate = shared + m.layers * experts * perExpertPerLayer;
  const scale = m.params ? m.params / estimate : 1;
  shared *= scale;
  perExpertPerLayer *= scale;
  const routedExperts = moe ? m.layers * experts * perExpertPerLayer : 0;
  const total = shared + routedExperts;
  const activePerToken = shared + m.layers * Math.min(m.expertsPerToken ?? 1, experts) * perExpertPerLayer;
  return { shared, embedding: embed * scale, perExpertPerLayer, routedExperts, total, activePerToken: moe ? activePerToken : total };
}

/** Values transformers' config classes default to and config.json files therefore often omit, by model_type. */
const HF_DEFAULTS: Record<string, Record<string, unknown>> = {
  gemma3_text: { vocab_size: 262208, sliding_window: 4096, sliding_window_pattern: 6, max_position_embeddings: 131072, tie_word_embeddings: true, head_dim: 256 },
  gemma2: { sliding_window_pattern: 2, tie_word_embeddings: true },
  llama4_text: { attention_chunk_size: 8192 },
};

/**
 * Layers that attend to a bounded window, and that window, from `layer_types` (gpt-oss, Gemma 3, recent
 * transformers), else `sliding_window_pattern` (every Nth layer global: Gemma 2/3), else Llama 4's chunked local
 * attention (`attention_chunk_size` on the RoPE layers of `no_rope_layers`, every 4th layer global), else a
 * `sliding_window` on every layer (Mistral-7B-v0.1). Qwen's `use_sliding_window: false` turns the window off.
 */
function slidingOf(c: Record<string, unknown>, layers: number): { slidingWindow?: number; slidingLayers?: number } {
  const num = (k: string): number | undefined => (typeof c[k] === 'number' ? (c[k] as number) : undefined);
  if (c.model_type === 'llama4_text' && num('attention_chunk_size')) {
    const rope = Array.isArray(c.no_rope_layers) && c.no_rope_layers.length > 0 ? c.no_rope_layers.slice(0, layers).filter((v) => v === 1 || v === true).length : layers - Math.floor(layers / 4);
    return rope > 0 ? { slidingWindow: num('attention_chunk_size'), slidingLayers: rope } : {};
  }
  const window = num('sliding_window');
  if (window === undefined || window <= 0 || c.use_sliding_window === false) return {};
  let slidingLayers = layers;
  if (Array.isArray(c.layer_types)) slidingLayers = c.layer_types.slice(0, layers).filter((t) => t === 'sliding_attention').length;
  else if (num('sliding_window_pattern')) slidingLayers = layers - Math.floor(layers / num('sliding_window_pattern')!);
  return slidingLayers > 0 ? { slidingWindow: window, slidingLayers } : {};
}

/**
 * Convert a Hugging Face config.json object into a model profile: dense and GQA models, MoE (Mixtral, Qwen2/3-MoE,
 * DeepSeek, gpt-oss, Llama 4) with shared experts and leading dense layers, MLA (DeepSeek-V2/V3/R1, Kimi K2),
 * sliding-window and hybrid attention, and multimodal configs that nest the language model in `text_config`.
 */
/** The checkpoint's precision from config.json: quantization_config.quant_method (fp8, mxfp4, modelopt NVFP4), else torch_dtype fp16/fp32. */
function releasedDtypeOf(c: Record<string, unknown>): WeightDtype | undefined {
  const q = c.quantization_config && typeof c.quantization_config === 'object' ? (c.quantization_config as Record<string, unknown>).quant_method : undefined;
  if (q === 'fp8' || q === 'mxfp4') return q;
  // NVIDIA ModelOpt checkpoints (nvidia/DeepSeek-R1-FP4): quant_method modelopt, quant_algo NVFP4.
  if (q === 'modelopt' && String((c.quantization_config as Record<string, unknown>).quant_algo).toUpperCase() === 'NVFP4') return 'nvfp4';
  const t = c.torch_dtype ?? c.dtype;
  return t === 'float16' ? 'fp16' : t === 'float32' ? 'fp32' : undefined;
}

/**
 * The FP8 checkpoint's weight scaling from config.json: quant_method fp8 with weight_block_size (DeepSeek, Qwen3-FP8)
 * → block, without → tensor (AutoFP8); compressed-tensors → its weights' strategy (block, or tensor/channel → tensor).
 * undefined when the checkpoint is not FP8-quantized.
 */
function fp8ScalingOf(c: Record<string, unknown>): Fp8Scaling | undefined {
  const q = c.quantization_config && typeof c.quantization_config === 'object' ? (c.quantization_config as Record<string, unknown>) : undefined;
  if (!q) return undefined;
  if (q.quant_method === 'fp8') return Array.isArray(q.weight_block_size) ? 'block' : 'tensor';
  if (q.quant_method !== 'compressed-tensors' || !q.config_groups || typeof q.config_groups !== 'object') return undefined;
  for (const g of Object.values(q.config_groups as Record<string, unknown>)) {
    const w = g && typeof g === 'object' ? ((g as Record<string, unknown>).weights as Record<string, unknown> | undefined) : undefined;
    if (w?.type === 'float' && w.num_bits === 8) return w.strategy === 'block' ? 'block' : 'tensor';
  }
  return undefined;
}

export function fromHfConfig(id: string, raw: Record<string, unknown>): ModelProfile {
  const text = raw.text_config && typeof raw.text_config === 'object' ? (raw.text_config as Record<string, unknown>) : {};
  const merged = { ...raw, ...text };
  const c: Record<string, unknown> = { ...(HF_DEFAULTS[String(merged.model_type)] ?? {}), ...merged };
  const num = (k: string): number | undefined => (typeof c[k] === 'number' ? (c[k] as number) : undefined);
  const problems: string[] = [];
  const need = (k: string): number => {
    const v = num(k);
    if (v === undefined) problems.push(`${id}: config.json has no numeric "${k}"`);
    return v ?? 1;
  };
  const hidden = need('hidden_size');
  const heads = need('num_attention_heads');
  const layers = need('num_hidden_layers');
  const vocab = need('vocab_size');
  const e = num('num_local_experts') ?? num('num_experts') ?? num('n_routed_experts');
  const moe = e !== undefined && e > 1;
  const intermediate = (moe ? num('moe_intermediate_size') : undefined) ?? need('intermediate_size');
  if (problems.length) throw new UsageError(problems);
  const kvLoraRank = num('kv_lora_rank');
  const mla = kvLoraRank
    ? { kvLoraRank, qkRopeHeadDim: num('qk_rope_head_dim') ?? 64, qkNopeHeadDim: num('qk_nope_head_dim') ?? 128, vHeadDim: num('v_head_dim') ?? 128, qLoraRank: num('q_lora_rank') }
    : undefined;
  let sharedExperts: number | undefined;
  let sharedExpertIntermediate: number | undefined;
  let denseLayers: number | undefined;
  let denseIntermediate: number | undefined;
  if (moe) {
    if (num('n_shared_experts')) sharedExperts = num('n_shared_experts');
    else if (num('shared_expert_intermediate_size')) [sharedExperts, sharedExpertIntermediate] = [1, num('shared_expert_intermediate_size')];
    else if (c.model_type === 'llama4_text') sharedExperts = 1;
    if (num('first_k_dense_replace')) [denseLayers, denseIntermediate] = [Math.min(num('first_k_dense_replace')!, layers - 1), num('intermediate_size')];
    const step = num('interleave_moe_layer_step');
    if (step && step > 1) [denseLayers, denseIntermediate] = [layers - Math.floor(layers / step), num('intermediate_size_mlp') ?? num('intermediate_size')];
  }
  const r = modelProfileSchema.safeParse({
    id,
    layers,
    hidden,
    heads,
    kvHeads: num('num_key_value_heads') ?? heads,
    headDim: num('head_dim') ?? mla?.vHeadDim ?? Math.floor(hidden / heads),
    intermediate,
    vocab,
    experts: moe ? e : undefined,
    expertsPerToken: moe ? (num('num_experts_per_tok') ?? num('experts_per_token') ?? 2) : undefined,
    sharedExperts,
    sharedExpertIntermediate,
    denseLayers,
    denseIntermediate,
    mla,
    ...slidingOf(c, layers),
    qkNormAcrossHeads: c.use_qk_norm === true && c.qk_norm_type === 'per_layer' ? true : undefined,
    tiedEmbeddings: c.tie_word_embeddings === true,
    maxModelLen: num('max_position_embeddings') ?? 4096,
    releasedDtype: releasedDtypeOf(c) ?? (fp8ScalingOf(c) ? 'fp8' : undefined),
    fp8Scaling: fp8ScalingOf(c),
  });
  if (!r.success) throw new UsageError(r.error.issues.map((i) => `${id}: config.json: ${i.path.join('.')}: ${i.message}`));
  return r.data;
}
