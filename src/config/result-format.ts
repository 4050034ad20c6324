// --result-format: also write a run's results in another tool's schema (vllm = vllm-result.json), for run, sweep and simulate.
import { z } from 'zod';
import { flagTable } from './flags.js';
import { unknownKind } from '../util/kinds.js';

export const RESULT_FORMATS = ['tokenflood', 'vllm'] as const;

export const ResultFormatSchema = z.object({
  resultFormat: z.enum(RESULT_FORMATS, { error: (iss) => unknownKind(String(iss.input), RESULT_FORMATS) }).default('tokenflood'),
});

export const RESULT_FORMAT_FLAGS = flagTable(ResultFormatSchema.shape, {
  resultFormat: {
    help: "also write the results in another tool's schema: vllm = vllm-result.json, the result JSON of vllm bench serve --save-result --save-detailed (field names and units as vLLM writes them, metrics under vLLM's definitions; docs/output-format.md#vllm-resultjson); each sweep point gets its own",
  },
});
