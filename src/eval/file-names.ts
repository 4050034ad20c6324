// The names of an eval's files in a results directory (written by src/eval-run/files.ts, read by compare), from the artifact registry.
import { ARTIFACTS } from '../artifacts/registry.js';

export const EVAL_JSONL = ARTIFACTS.evalAnswers.file;
export const EVAL_JSON = ARTIFACTS.eval.file;
