// Options of `tokenflood eval` beyond run's (the set, how it is prompted and graded): schema, flag table and the sampling defaults.
import { z } from 'zod';
import { flagTable } from '../util/flags.js';
import { GRADE_MODES } from './grade.js';
import { SHIPPED_SETS } from './sets.js';

export const EvalSchema = z.object({
  set: z.string().min(1),
  limit: z.coerce.number().int().positive().optional(),
  shots: z.coerce.number().int().min(0).max(8).default(0),
  repeat: z.coerce.number().int().min(1).max(100).default(1),
  grade: z.enum(GRADE_MODES).optional(),
  gradeRegex: z
    .string()
    .min(1)
    .superRefine((v, ctx) => {
      try {
        new RegExp(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: `not a valid regular expression: ${(e as Error).message}` });
      }
    })
    .optional(),
  failOn: z.string().min(1).optional(),
  shard: z.string().min(1).optional(),
  contextTokens: z.coerce.number().int().min(0).max(1_000_000).default(0),
  compareOutputs: z.string().url().optional(),
});

export type EvalOptions = z.output<typeof EvalSchema>;

export const EVAL_FLAGS = flagTable(EvalSchema.shape, {
  set: { arg: 'name|file', help: `graded set: a shipped one (${SHIPPED_SETS.join(', ')}) or a JSONL file of {"question", "answer", "choices"?, ...slice fields}` },
  limit: { help: 'grade only the first N items of the set', defaultText: 'all' },
  shots: { help: 'few-shot examples before each question (the first N other items of the set, with their gold answers)' },
  repeat: { arg: 'k', help: 'send every item K times and report the share of identical answers (consistency at temperature 0)' },
  grade: { help: 'grading mode', defaultText: 'choice when every item has choices, numeric when every answer is a number, else exact' },
  gradeRegex: { arg: 'pattern', help: 'with --grade regex: the answer is capture group 1 (or the whole match) of the last match' },
  failOn: { arg: 'accuracy_below=P', help: 'exit 1 when accuracy is below P, e.g. accuracy_below=0.75 or 75%' },
  contextTokens: { arg: 'tokens', help: 'put a prose background document of about N tokens before every prompt, to grade the same questions at long input lengths (KV quantization costs accuracy on long inputs: docs/commands/eval.md#long-inputs-and-kv-quantization)' },
  compareOutputs: { arg: 'url', help: 'also send every prompt to this second server (same model name, --temperature 0) and report the items whose answer text differs, e.g. a speculative-decoding server against a plain one (docs/commands/eval.md#comparing-outputs)' },
  shard: { arg: 'I/N', help: 'grade shard I (0-based) of N: the items whose index ≡ I mod N (few-shot examples still come from the whole set); tokenflood merge combines the N results directories into one eval.json (docs/eval.md#split-evaluation)' },
});

/** Run options an eval sets unless given (docs/eval.md#sampling): fixed sampling, room for reasoning, no forced lengths. */
export const EVAL_RUN_DEFAULTS = { temperature: 0, topP: 1, seed: 1234, maxTokens: 8192, concurrency: 16, ignoreEos: false } as const;

/** Run flags whose default in `eval --help` is eval's own (EVAL_RUN_DEFAULTS), not run's. */
export const EVAL_SHOWN_DEFAULTS = {
  temperature: String(EVAL_RUN_DEFAULTS.temperature),
  topP: String(EVAL_RUN_DEFAULTS.topP),
  seed: String(EVAL_RUN_DEFAULTS.seed),
  maxTokens: String(EVAL_RUN_DEFAULTS.maxTokens),
  concurrency: `${EVAL_RUN_DEFAULTS.concurrency} when no --rate`,
  requests: 'every item of the set, --repeat times',
} as const;

/** Graded probes inside a load run or sweep (run.json config keys; `tokenflood run` and `sweep` act on them, the library's run() ignores them). */
export const EvalUnderLoadSchema = z.object({
  evalUnderLoad: z.string().min(1).optional(),
  evalLimit: z.coerce.number().int().positive().optional(),
});

export const EVAL_UNDER_LOAD_FLAGS = flagTable(EvalUnderLoadSchema.shape, {
  evalUnderLoad: { arg: 'set', help: 'also grade this set (a shipped name or a JSONL file) as every 2nd request of the load, and once alone at concurrency 1 as the idle baseline; accuracy per load level with McNemar p (docs/eval.md#under-load)' },
  evalLimit: { help: 'with --eval-under-load: the first N items only', defaultText: 'all' },
});
