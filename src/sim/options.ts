// Sim server options (zod): the single source of defaults and help text for startSimServer and `tokenflood serve`.
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { DEFAULT_TOKENIZER } from '../dataset/tokenizer.js';
import { DEFAULT_GPU, DEFAULT_MODEL } from './engine/catalog.js';
import { faultOptionsSchema } from './http/faults.js';

export const simServerOptionsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1').describe('interface to bind'),
  port: z.number().int().min(0).max(65535).default(0).describe('port to listen on (0 = any free port)'),
  gpu: z.string().default(DEFAULT_GPU).describe('GPU id or GPU profile file'),
  modelProfile: z.string().default(DEFAULT_MODEL).describe('model profile id, profile file or Hugging Face config.json'),
  tp: z.number().int().min(1).max(64).default(1).describe('tensor-parallel GPUs'),
  weightDtype: z.enum(['bf16', 'fp16', 'fp8', 'int4']).default('bf16').describe('weight precision'),
  kvDtype: z.enum(['bf16', 'fp16', 'fp8']).default('bf16').describe('KV cache precision'),
  maxNumSeqs: z.number().int().min(1).default(256).describe('max sequences per step'),
  maxNumBatchedTokens: z.number().int().min(1).default(8192).describe('token budget per step'),
  gpuMemoryUtilization: z.number().gt(0).lte(1).default(0.9).describe('fraction of GPU memory for weights + KV cache'),
  maxModelLen: z.number().int().min(1).optional().describe('max prompt + output tokens (default: model limit capped by KV capacity)'),
  blockSize: z.number().int().min(1).default(16).describe('tokens per KV block'),
  numGpuBlocksOverride: z.number().int().min(1).optional().describe('force the KV cache size in blocks'),
  prefixCaching: z.boolean().default(true).describe('automatic prefix caching'),
  tokensPerChunk: z.number().int().min(1).default(1).describe('output tokens per SSE chunk'),
  reasoningShare: z.number().min(0).max(1).default(0.5).describe('share of output tokens that are reasoning for <model>-reasoning'),
  timeScale: z.number().gt(0).max(10_000).default(1).describe('simulated ms per wall-clock ms (10 = ten times faster)'),
  servedModelName: z.string().min(1).optional().describe('model id to serve (default: the model profile id)'),
  tokenizer: z.string().default(DEFAULT_TOKENIZER).describe('tokenizer for prompt counts and output text'),
  seed: z.number().int().default(1).describe('seed for output lengths, text and fault draws'),
  faults: faultOptionsSchema.optional().describe('fault injection (all off by default)'),
});

export type SimServerOptions = z.input<typeof simServerOptionsSchema>;
export type ResolvedSimServerOptions = z.output<typeof simServerOptionsSchema>;

/** Validate options, reporting every problem at once. */
export function parseSimServerOptions(opts: SimServerOptions): ResolvedSimServerOptions {
  const r = simServerOptionsSchema.safeParse(opts);
  if (!r.success) throw new UsageError(r.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`));
  return r.data;
}
