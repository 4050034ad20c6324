// Options and resolved numbers of the engine features that change capacity: speculative decoding, KV offload, pipeline parallelism.
import { z } from 'zod';

export const SPEC_METHODS = ['off', 'draft', 'eagle', 'ngram'] as const;
export type SpecMethod = (typeof SPEC_METHODS)[number];

/** Cost of one draft step as a fraction of the target's decode step, per method (n-gram lookup is ~free). */
export const DEFAULT_DRAFT_COST: Record<Exclude<SpecMethod, 'off'>, number> = { draft: 0.1, eagle: 0.05, ngram: 0 };

/** Engine option fields of the features (merged into engineOptionsSchema and the sim server's options). */
export const featureOptionsShape = {
  specMethod: z.enum(SPEC_METHODS).default('off').describe('speculative decoding: a draft model, an EAGLE head or n-gram lookup proposes --spec-tokens tokens per step (docs/sim.md#speculative-decoding)'),
  specTokens: z.number().int().min(1).max(16).default(3).describe('draft tokens proposed per sequence per step (K)'),
  specAcceptance: z.number().min(0).max(0.99).default(0.7).describe('probability that each draft token is accepted (i.i.d.)'),
  specDraftCost: z.number().min(0).max(2).optional().describe('cost of one draft step as a fraction of a target decode step; unset = 0.1 for draft, 0.05 for eagle, 0 for ngram'),
  specDraftGiB: z.number().min(0).max(4096).optional().describe('draft model (or EAGLE head) weights per GPU, GiB, taken from the KV cache; unset = --spec-draft-cost x the target\'s weights for draft, one target layer for eagle, 0 for ngram'),
  kvOffloadGiB: z.number().min(0).max(65536).default(0).describe('host (CPU) memory per GPU for offloaded KV blocks: evicted prefix blocks and preempted requests move there (docs/sim.md#kv-offload-to-cpu-memory)'),
  pcieGBps: z.number().gt(0).default(25).describe('host-to-GPU bandwidth for KV offload transfers, GB/s'),
  pp: z.number().int().min(1).max(64).default(1).describe('pipeline-parallel stages: layers and weights split over stages (docs/sim.md#pipeline-parallelism)'),
  disagg: z.string().regex(/^[1-9][0-9]*:[1-9][0-9]*$/, 'expected P:D, e.g. 1:2 (prefill and decode instances)').optional().describe('disaggregated serving: P prefill and D decode instances (each --tp x --pp GPUs) with a KV transfer between them (docs/sim.md#disaggregated-prefill-and-decode)'),
  disaggLinkGBps: z.number().gt(0).default(50).describe('KV transfer bandwidth from a prefill to a decode instance with --disagg, GB/s'),
  disaggLatencyMs: z.number().min(0).default(0.5).describe('fixed cost of one KV transfer with --disagg, ms'),
};

/**
 * Draft weights per GPU: --spec-draft-gib when given; a draft model costs --spec-draft-cost of a target decode step,
 * and decode streams weights, so its weights ≈ draftCost · target weights; an EAGLE head is one decoder layer
 * (target weights / layers; it shares the target's embeddings and LM head); n-gram lookup has none.
 */
export function draftWeightBytes(o: { specMethod: SpecMethod; specDraftCost?: number; specDraftGiB?: number }, targetBytesPerGpu: number, layers: number): number {
  if (o.specMethod === 'off' || o.specMethod === 'ngram') return 0;
  if (o.specDraftGiB !== undefined) return o.specDraftGiB * 1024 ** 3;
  if (o.specMethod === 'eagle') return targetBytesPerGpu / layers;
  return (o.specDraftCost ?? DEFAULT_DRAFT_COST.draft) * targetBytesPerGpu;
}

/** Layers on the fullest pipeline stage: ceil(layers / pp). */
export function stageLayers(layers: number, pp: number): number {
  return Math.ceil(layers / pp);
}

export interface SpecDecodeSpec {
  method: Exclude<SpecMethod, 'off'>;
  /** Draft tokens per sequence per step (K). */
  tokens: number;
  /** Per-token acceptance probability (a). */
  acceptance: number;
  /** One draft step's cost as a fraction of a target decode step. */
  draftCost: number;
}

export interface OffloadSpec {
  /** Blocks the host memory holds (per GPU, same block size as the GPU cache). */
  blocks: number;
  /** Host-to-GPU bytes per second. */
  bytesPerSec: number;
}

export interface DisaggSpec {
  prefill: number;
  decode: number;
  /** KV transfer: bytes per second per GPU, and a fixed latency. */
  bytesPerSec: number;
  latencyMs: number;
}

/** Resolved feature settings on the EngineSpec. */
export interface FeatureSpec {
  spec?: SpecDecodeSpec;
  offload?: OffloadSpec;
  pp: number;
  disagg?: DisaggSpec;
}

interface FeatureInput {
  specMethod: SpecMethod;
  specTokens: number;
  specAcceptance: number;
  specDraftCost?: number;
  kvOffloadGiB: number;
  pcieGBps: number;
  pp: number;
  disagg?: string;
  disaggLinkGBps: number;
  disaggLatencyMs: number;
}

/** Options → FeatureSpec; `kvBlockBytes` is one KV block's bytes on one GPU. */
export function resolveFeatures(o: FeatureInput, kvBlockBytes: number): FeatureSpec {
  const spec: SpecDecodeSpec | undefined =
    o.specMethod === 'off'
      ? undefined
      : { method: o.specMethod, tokens: o.specTokens, acceptance: o.specAcceptance, draftCost: o.specDraftCost ?? DEFAULT_DRAFT_COST[o.specMethod] };
  const blocks = Math.floor((o.kvOffloadGiB * 1024 ** 3) / kvBlockBytes);
  const [p, d] = (o.disagg ?? '').split(':').map(Number);
  const disagg = o.disagg ? { prefill: p, decode: d, bytesPerSec: o.disaggLinkGBps * 1e9, latencyMs: o.disaggLatencyMs } : undefined;
  return { spec, offload: blocks > 0 ? { blocks, bytesPerSec: o.pcieGBps * 1e9 } : undefined, pp: o.pp, disagg };
}

/** run.json `engine` fields of the features that are on. */
export function featureMeta(f: FeatureSpec): Record<string, unknown> {
  return {
    ...(f.spec ? { spec_method: f.spec.method, spec_tokens: f.spec.tokens, spec_acceptance: f.spec.acceptance, spec_draft_cost: f.spec.draftCost } : {}),
    ...(f.offload ? { kv_offload_blocks: f.offload.blocks, pcie_gbps: f.offload.bytesPerSec / 1e9 } : {}),
    pp: f.pp,
    ...(f.disagg ? { disagg: `${f.disagg.prefill}:${f.disagg.decode}`, disagg_link_gbps: f.disagg.bytesPerSec / 1e9, disagg_latency_ms: f.disagg.latencyMs } : {}),
  };
}
