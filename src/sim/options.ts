// Sim server options (zod): the single source of defaults and help text for startSimServer and `tokenflood serve`.
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { DEFAULT_TOKENIZER } from '../dataset/tokenizer.js';
import { engineOptionsSchema, RELEASED_DTYPE_TEXT } from './engine/config.js';
import { tuningShape, withEngineProfile } from './engine/tuning.js';
import { faultOptionsSchema } from './http/faults.js';
import { sharedPrefixOptionsShape } from './engine/shared-prefix.js';

/** The fault table and its `kind[:rate][,key=value]` parser, for the layers that compose the sim's options (config/ --sim-fault). */
export { FAULT_KINDS, faultOptionsSchema, parseFaultSpec } from './http/faults.js';
import { METRICS_FLAVOR_NAMES } from './http/metrics-flavors.js';

const engine = engineOptionsSchema.shape;

export const simServerOptionsSchema = z.object({
  host: z.string().min(1).default('127.0.0.1').describe('interface to bind'),
  port: z.number().int().min(0).max(65535).default(0).describe('port to listen on (0 = any free port)'),
  // Engine knobs: the engine's own validators and defaults (src/sim/engine/config.ts), with server-facing help.
  gpu: engine.gpu.describe('GPU id or GPU profile file'),
  modelProfile: engine.model,
  tp: engine.tp.describe('tensor-parallel GPUs'),
  weightDtype: engine.weightDtype,
  kvDtype: engine.kvDtype,
  maxNumSeqs: engine.maxNumSeqs.describe('max sequences per step'),
  maxNumBatchedTokens: engine.maxNumBatchedTokens.describe('token budget per step'),
  gpuMemoryUtilization: engine.gpuMemoryUtilization.describe('fraction of GPU memory for weights + KV cache'),
  maxModelLen: engine.maxModelLen.describe('max prompt + output tokens'),
  blockSize: engine.blockSize,
  numGpuBlocksOverride: engine.numGpuBlocksOverride.describe('force the KV cache size in blocks'),
  prefixCaching: engine.prefixCaching.describe('automatic prefix caching'),
  ...tuningShape,
  tokensPerChunk: z.number().int().min(1).default(1).describe('output tokens per SSE chunk'),
  reasoningShare: z.number().min(0).max(1).default(0.5).describe('share of output tokens that are reasoning for <model>-reasoning'),
  timeScale: z.number().gt(0).max(10_000).default(1).describe('simulated ms per wall-clock ms (10 = ten times faster)'),
  servedModelName: z.string().min(1).optional().describe('model id to serve'),
  tokenizer: z.string().default(DEFAULT_TOKENIZER).describe('tokenizer for prompt counts and output text'),
  seed: z.number().int().default(1).describe('seed for output lengths, text and fault draws'),
  metricsFlavor: z.enum(METRICS_FLAVOR_NAMES).default('vllm').describe("engine whose metric names /metrics uses (vllm, sglang or tgi); DCGM GPU series are always added, and served alone on /dcgm/metrics"),
  requestIdHeader: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name')
    .default('x-request-id')
    .describe('request header echoed in each response and shown by --log-requests (tokenflood run sends X-Request-ID)'),
  logRequests: z.boolean().default(false).describe('print one line per generation request to stdout: method, path, status, request id'),
  accuracy: z.number().min(0).max(1).optional().describe('oracle mode: probability that an item of a shipped eval set is answered right at bf16/fp16 (docs/sim.md#oracle)'),
  corruptAbove: z.number().int().min(1).optional().describe('oracle mode fault: a reply whose first token is computed in an engine step with more than N sequences gets a wrong answer (batch-dependent numerics)'),
  faults: faultOptionsSchema.optional().describe('fault injection (all off by default)'),
  maxInputTokens: z.number().int().min(1).optional().describe("a vendor API's cap on prompt tokens: a longer prompt gets HTTP 400 in OpenAI's error shape (code context_length_exceeded); unset: no cap"),
  maxOutputTokens: z.number().int().min(1).optional().describe("a vendor API's cap on max_tokens: a request asking for more gets HTTP 400 in OpenAI's error shape (max_tokens is too large); unset: no cap"),
  replicas: z.number().int().min(1).max(64).default(1).describe('simulated engines behind this one port, each with its own KV and prefix cache, picked by --router (docs/routing.md)'),
  router: z
    .enum(['round-robin', 'prefix-hash', 'session'])
    .default('round-robin')
    .describe('how the built-in router picks a replica with --replicas: in turn; by a hash of the first --router-prefix-tokens prompt tokens (one shared prefix, one replica); or by the --session-header value (one session, one replica)'),
  sessionHeader: z
    .string()
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected an HTTP header name')
    .default('x-session-id')
    .describe('request header naming the session, read by --router session (tokenflood run sends it with --session-header)'),
  ...sharedPrefixOptionsShape,
  routerPrefixTokens: z.number().int().min(1).max(1_000_000).default(1024).describe("prompt tokens that --router prefix-hash hashes: the first N of the first message (the prompt for completions), fewer if it is shorter; 1024 = two 512-token trace blocks, since a trace's first block is often shared by every request"),
});

/** Defaults decided when the engine is built (no `.default()` in the schema), shown in the flags' help. */
export const SIM_SERVER_FLAG_META = {
  maxModelLen: { defaultText: 'model limit capped by KV capacity' },
  weightDtype: { defaultText: RELEASED_DTYPE_TEXT },
  servedModelName: { defaultText: 'the model profile id' },
  accuracy: { defaultText: "the model profile's (docs/sim.md#oracle)" },
  sessionHeader: { arg: 'name' },
  routerPrefixTokens: { arg: 'tokens' },
} as const;

export type SimServerOptions = z.input<typeof simServerOptionsSchema>;
export type ResolvedSimServerOptions = z.output<typeof simServerOptionsSchema>;

/** Validate options, reporting every problem at once. */
export function parseSimServerOptions(opts: SimServerOptions): ResolvedSimServerOptions {
  const r = simServerOptionsSchema.safeParse(withEngineProfile(opts as Record<string, unknown>));
  if (!r.success) throw new UsageError(r.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`));
  return r.data;
}
