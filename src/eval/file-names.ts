// The names of an eval's files in a results directory (written by src/eval-run/files.ts, read by compare).
export const EVAL_JSONL = 'eval.jsonl';
export const EVAL_JSON = 'eval.json';
