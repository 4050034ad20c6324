// Model and GPU profile shapes (zod), parameter estimates, and converting a Hugging Face config.json into a profile.
import { z } from 'zod';
import { UsageError } from '../../errors.js';

export const modelProfileSchema = z.object({
  id: z.string().min(1),
  hfName: z.string().optional(),
  layers: z.number().int().positive(),
  hidden: z.number().int().positive(),
  heads: z.number().int().positive(),
  kvHeads: z.number().int().positive(),
  headDim: z.number().int().positive(),
  /** Dense MLP width, or the width of one expert for MoE models. */
  intermediate: z.number().int().positive(),
  vocab: z.number().int().positive(),
  /** Routed experts per MoE layer (absent or 1 = dense). */
  experts: z.number().int().positive().optional(),
  expertsPerToken: z.number().int().positive().optional(),
  tiedEmbeddings: z.boolean().optional(),
  /** Total parameters; when absent, estimated from the architecture. */
  params: z.number().positive().optional(),
  maxModelLen: z.number().int().positive(),
});
export type ModelProfile = z.infer<typeof modelProfileSchema>;

export const gpuProfileSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  bf16Tflops: z.number().positive(),
  fp8Tflops: z.number().positive().optional(),
  hbmTBps: z.number().positive(),
  memBytes: z.number().positive(),
  bwEfficiency: z.number().gt(0).lte(1),
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
  /** Parameters every token uses: attention, embeddings, LM head, dense MLPs. */
  shared: number;
  /** Parameters of one expert in one layer (0 for dense models). */
  perExpertPerLayer: number;
  total: number;
  /** Parameters one token touches (shared + top-k experts in every layer). */
  activePerToken: number;
}

/**
 * attention = 2·hidden·(heads·headDim) + 2·hidden·(kvHeads·headDim) per layer;
 * MLP (SwiGLU) = 3·hidden·intermediate per layer (per expert for MoE);
 * embeddings = vocab·hidden, twice unless tied. Norms and biases are ignored (<0.1%).
 */
export function paramBreakdown(m: ModelProfile): ParamBreakdown {
  const attn = 2 * m.hidden * m.heads * m.headDim + 2 * m.hidden * m.kvHeads * m.headDim;
  const mlp = 3 * m.hidden * m.intermediate;
  const embed = m.vocab * m.hidden * (m.tiedEmbeddings ? 1 : 2);
  const experts = m.experts ?? 1;
  const moe = experts > 1;
  const router = moe ? m.hidden * experts : 0;
  let shared = m.layers * (attn + router + (moe ? 0 : mlp)) + embed;
  let perExpertPerLayer = moe ? mlp : 0;
  const estimate = shared + m.layers * experts * perExpertPerLayer;
  const scale = m.params ? m.params / (moe ? estimate : shared) : 1;
  shared *= scale;
  perExpertPerLayer *= scale;
  const total = shared + m.layers * (moe ? experts : 0) * perExpertPerLayer;
  const activePerToken = shared + m.layers * Math.min(m.expertsPerToken ?? 1, experts) * perExpertPerLayer;
  return { shared, perExpertPerLayer, total, activePerToken: moe ? activePerToken : total };
}

/** Convert a Hugging Face config.json object into a model profile. */
export function fromHfConfig(id: string, c: Record<string, unknown>): ModelProfile {
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
  const experts = num('num_local_experts') ?? num('num_experts') ?? num('n_routed_experts');
  const intermediate = (experts && experts > 1 ? num('moe_intermediate_size') : undefined) ?? need('intermediate_size');
  if (problems.length) throw new UsageError(problems);
  return modelProfileSchema.parse({
    id,
    layers,
    hidden,
    heads,
    kvHeads: num('num_key_value_heads') ?? heads,
    headDim: num('head_dim') ?? Math.floor(hidden / heads),
    intermediate,
    vocab,
    experts: experts && experts > 1 ? experts : undefined,
    expertsPerToken: experts && experts > 1 ? (num('num_experts_per_tok') ?? 2) : undefined,
    tiedEmbeddings: c.tie_word_embeddings === true,
    maxModelLen: num('max_position_embeddings') ?? 4096,
  });
}
