// Workload options (what each request asks for): schema and flag table. The single source of truth for them.
import { z } from 'zod';
import type { FlagTable } from './flags.js';

export const WorkloadSchema = z.object({
  inputTokens: z.coerce.number().int().positive().default(512),
  outputTokens: z.coerce.number().int().positive().default(128),
  ignoreEos: z.boolean().default(true),
  cacheBust: z.boolean().default(true),
  temperature: z.coerce.number().min(0).optional(),
  topP: z.coerce.number().gt(0).max(1).optional(),
  topK: z.coerce.number().int().optional(),
  seed: z.coerce.number().int().optional(),
  datasetSeed: z.coerce.number().int().default(42),
  tokenizer: z.string().min(1).default('cl100k_base'),
});

export const WORKLOAD_FLAGS: FlagTable<z.input<typeof WorkloadSchema>> = {
  inputTokens: { flag: '--input-tokens <n>', help: 'prompt length in tokens, exact as counted by --tokenizer (default 512)' },
  outputTokens: { flag: '--output-tokens <n>', help: 'output length: sent as max_tokens (and min_tokens with --ignore-eos) (default 128)' },
  ignoreEos: { flag: '--no-ignore-eos', help: 'do not send ignore_eos/min_tokens (for servers that reject them, e.g. hosted OpenAI)' },
  cacheBust: { flag: '--no-cache-bust', help: 'do not start each prompt with a unique nonce (allows prefix-cache hits)' },
  temperature: { flag: '--temperature <t>', help: 'sampling temperature, passed through' },
  topP: { flag: '--top-p <p>', help: 'nucleus sampling top_p, passed through' },
  topK: { flag: '--top-k <k>', help: 'top_k, passed through' },
  seed: { flag: '--seed <n>', help: 'sampling seed sent to the server, passed through' },
  datasetSeed: { flag: '--dataset-seed <n>', help: 'seed of the workload and arrival generator: same seed, same run (default 42)' },
  tokenizer: { flag: '--tokenizer <name|path>', help: 'tokenizer that counts prompt tokens: cl100k_base, o200k_base or a Hugging Face tokenizer folder (default cl100k_base)' },
};
