// --result-format: also write a run's results in another tool's schema (vllm = vllm-result.json), for run, sweep and simulate.
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { unknownKind } from '../util/kinds.js';

export const RESULT_FORMATS = ['tokenflood', 'vllm'] as const;

/** Longest answer kept per request for vllm-result.json's generated_texts (characters); longer ones are cut. */
export const MAX_GENERATED_TEXT_CHARS = 65_536;

export const ResultFormatSchema = z.object({
  resultFormat: z.enum(RESULT_FORMATS, { error: (iss) => unknownKind(String(iss.input), RESULT_FORMATS) }).default('tokenflood'),
  resultLabel: z.string().min(1).max(200).optional(),
  resultMetadata: z.array(z.string().regex(/^[^=\s][^=]*=.*$/s, 'expected KEY=VALUE')).optional(),
  resultFile: z.string().min(1).optional(),
});

export const RESULT_FORMAT_FLAGS = flagTable(ResultFormatSchema.shape, {
  resultFormat: {
    help: "also write the results in another tool's schema: vllm = vllm-result.json, the result JSON of vllm bench serve --save-result --save-detailed (field names and units as vLLM writes them, metrics under vLLM's definitions, each answer in generated_texts; docs/output-format.md#vllm-resultjson); each sweep point gets its own",
  },
  resultLabel: { arg: 'text', help: 'with --result-format vllm: the label field of vllm-result.json (vllm bench serve --label)' },
  resultMetadata: { arg: 'KEY=VALUE', repeatable: true, help: 'with --result-format vllm: a top-level KEY of vllm-result.json set to VALUE, repeatable (vllm bench serve --metadata)' },
  resultFile: { arg: 'file', help: 'with --result-format vllm: also write vllm-result.json to this file; {model} and {date} in it become the model id\'s last part and the end time YYYYMMDD-HHMMSS, as vLLM names its files' },
});
