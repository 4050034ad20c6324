// Engine scheduling options that differ between vLLM, SGLang and TensorRT-LLM (profiles in data/engines/*.yaml):
// prefill policy, KV reservation at admission, CUDA-graph batch limit, and how the KV budget is taken from memory.
import { z } from 'zod';

export const SCHEDULE_POLICIES = ['decode-first', 'prefill-first'] as const;
export type SchedulePolicy = (typeof SCHEDULE_POLICIES)[number];

export const BATCHING_MODES = ['continuous', 'static'] as const;
export type BatchingMode = (typeof BATCHING_MODES)[number];
export const SCHEDULING_POLICIES = ['fcfs', 'priority'] as const;
export type SchedulingPolicy = (typeof SCHEDULING_POLICIES)[number];

/** vLLM refuses a priority it cannot honour rather than ignoring it: its 400 message, or undefined when it is accepted. */
export function priorityRefusal(priority: number, policy: SchedulingPolicy): string | undefined {
  return priority !== 0 && policy !== 'priority' ? `Got priority ${priority} but Priority scheduling is not enabled.` : undefined;
}

export const schedulingOptionsShape = {
  batching: z
    .enum(BATCHING_MODES)
    .default('continuous')
    .describe('continuous: requests join and leave the running batch at every step (vLLM, SGLang, TensorRT-LLM); static: a batch is formed while the engine is idle, runs until its last member finishes, and only then is the next admitted (docs/sim.md#batching-variants)'),
  schedulingPolicy: z
    .enum(SCHEDULING_POLICIES)
    .default('fcfs')
    .describe('fcfs: waiting requests in arrival order; priority: by the request body\'s "priority" (lower first, then arrival), and a waiting request that cannot fit preempts the lowest-priority running one (vLLM --scheduling-policy priority)'),
  schedulePolicy: z
    .enum(SCHEDULE_POLICIES)
    .default('decode-first')
    .describe('decode-first: running requests first, new prompts fill the rest of the step (vLLM, TensorRT-LLM inflight batching); prefill-first: a step of new prompts whenever one can be admitted, decodes wait (SGLang)'),
  blockTableUpload: z
    .boolean()
    .default(true)
    .describe('upload each scheduled request\'s block-table row (ceil(max-model-len / block-size) int32 ids) before every step, as vLLM does: the per-step cost that grows with --max-model-len (docs/sim.md#what---max-model-len-changes); false = the table lives on the GPU (SGLang)'),
  newTokenRatio: z
    .number()
    .min(0)
    .max(1)
    .default(0)
    .describe('KV kept free at admission for the output still to come: ratio x remaining output tokens of every running request (SGLang new_token_ratio; 0 = none, as vLLM)'),
  cudaGraphMaxBatch: z
    .number()
    .int()
    .min(0)
    .default(512)
    .describe('largest decode batch captured as a CUDA graph; a decode step with more sequences runs eagerly and pays --eager-layer-overhead-ms per layer (0 = no graphs)'),
  eagerLayerOverheadMs: z
    .number()
    .nonnegative()
    .default(0.04)
    .describe('extra kernel-launch cost per layer of a decode step run eagerly (outside a CUDA graph)'),
  chunkedPrefillByMemory: z
    .boolean()
    .default(false)
    .describe('size the step token budget by GPU memory as SGLang does when --chunked-prefill-size is unset: 2048 below 35 GB, 8192 below 160 GB (H100, H200, A100), 16384 above (B200, MI300X); --max-num-batched-tokens given wins (docs/sim.md#engine-presets---engine-vllmsglangtrtllm)'),
  allReduceFusion: z
    .boolean()
    .default(false)
    .describe('fuse each TP all-reduce with the residual add and RMSNorm in one one-shot kernel, as SGLang does for its MoE models on Blackwell (FlashInfer allreduce fusion): the all-reduce latency floor x 8.7/13.5 on GPUs with NVFP4 tensor cores, MoE models, without --dp-attention; elsewhere no change (docs/sim.md#step-time)'),
  kvFreeMemoryFraction: z
    .number()
    .gt(0)
    .lte(1)
    .optional()
    .describe('KV budget as a fraction of the memory left after weights and reserve (TensorRT-LLM free_gpu_memory_fraction); unset = --gpu-memory-utilization of all memory minus weights (vLLM, SGLang)'),
};

/**
 * KV budget in bytes per GPU.
 * vLLM/SGLang: mem · utilization − weights − draft − reserve;
 * TensorRT-LLM: (mem − weights − draft − reserve) · free fraction.
 */
export function kvBudgetBytes(memBytes: number, utilization: number, freeFraction: number | undefined, usedBytes: number): number {
  return freeFraction === undefined ? memBytes * utilization - usedBytes : (memBytes - usedBytes) * freeFraction;
}

/**
 * SGLang's default chunked_prefill_size by GPU memory (python/sglang/srt/server_args.py): < 35 GB (A10, L40, 4090) 2048,
 * < 160 GB (H100, H200, A100, H20) 8192, otherwise (B200, MI300) 16384. SGLang's gpu_mem is in MiB of the device.
 */
export function sglangChunkedPrefillSize(memBytes: number): number {
  const mib = memBytes / 1024 ** 2;
  return mib < 35 * 1024 ? 2048 : mib < 160 * 1024 ? 8192 : 16384;
}

/**
 * The all-reduce latency floor with FlashInfer's fused all-reduce + residual + RMSNorm (one-shot Lamport kernel):
 * SGLang PR #7621 measured one call at TP8 on B200 at 8.7 µs against 13.5 µs for its custom all-reduce plus the
 * separate fused-add RMSNorm. SGLang turns it on by default on SM100 (Blackwell) for its MoE architectures (DeepSeek-V3,
 * gpt-oss, Qwen3-MoE, GLM-4.5; server_args.py) and not with DP attention; on Hopper the one-shot kernel is no faster
 * than the custom all-reduce (vLLM PR #22086, H100 TP2: 10 µs both). Blackwell = NVFP4 tensor cores in the catalog.
 */
export const FUSED_ALL_REDUCE_RATIO = 8.7 / 13.5;

export function allReduceFusionApplies(o: { allReduceFusion: boolean; dpAttention: boolean }, gpu: { fp4Formats?: readonly string[] }, experts: number): boolean {
  return o.allReduceFusion && !o.dpAttention && experts > 1 && (gpu.fp4Formats ?? []).includes('nvfp4');
}

/** A decode-only step above the largest captured batch runs eagerly: layers · eagerLayerOverheadMs more. */
export function eagerOverheadMs(s: { requests: number; newTokens: number }, layers: number, o: { cudaGraphMaxBatch: number; eagerLayerOverheadMs: number }): number {
  const decodeOnly = s.requests > 0 && s.newTokens === s.requests;
  return decodeOnly && s.requests > o.cudaGraphMaxBatch ? layers * o.eagerLayerOverheadMs : 0;
}
