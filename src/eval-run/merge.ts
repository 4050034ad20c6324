// Merging the results directories of `eval --shard I/N` into one eval.json and eval.jsonl: the accuracy one unsharded run gives.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { summarizeEval } from '../eval/summary.js';
import type { EvalOutcome } from '../eval/workload.js';
import { EVAL_JSON, EVAL_JSONL, type EvalDocument } from './files.js';

/** True when every directory holds the eval.json of an eval shard (the other kind of merge is a run's shards). */
export function areEvalShards(dirs: readonly string[]): boolean {
  return dirs.length > 0 && dirs.every((d) => {
    try {
      return (JSON.parse(readFileSync(join(d, EVAL_JSON), 'utf8')) as EvalDocument).shard !== undefined;
    } catch {
      return false;
    }
  });
}

/** An eval.jsonl line back as the outcome it was written from (the fields summarizeEval reads). */
function outcomeOf(line: Record<string, any>): EvalOutcome {
  return {
    item: { id: line.item_id, answer: line.gold, slices: line.slices ?? {} },
    repeat: line.repeat,
    requestId: line.request_id,
    status: line.status,
    answerText: line.answer_text,
    verdict: { correct: line.correct, extracted: line.extracted, rule: line.rule },
    promptTokens: line.prompt_tokens,
  } as unknown as EvalOutcome;
}

/**
 * Check the shards belong together (one set, one grading, one count, each index once, items that add up), then
 * summarize their answers as one run: accuracy, slices and intervals from every shard's eval.jsonl lines.
 */
export function mergeEvalShards(dirs: readonly string[], outDir: string, overwrite = false): EvalDocument {
  const docs = dirs.map((d) => JSON.parse(readFileSync(join(d, EVAL_JSON), 'utf8')) as EvalDocument);
  const first = docs[0];
  const problems: string[] = [];
  const count = first.shard!.count;
  docs.forEach((d, i) => {
    if (d.set !== first.set || d.grading !== first.grading) problems.push(`${dirs[i]}: set ${d.set} graded ${d.grading}, but ${dirs[0]} has ${first.set} graded ${first.grading}`);
    if (d.shard!.count !== count || d.shard!.set_items !== first.shard!.set_items) problems.push(`${dirs[i]}: shard ${d.shard!.index}/${d.shard!.count} of ${d.shard!.set_items} items, but ${dirs[0]} is one of ${count} of ${first.shard!.set_items}`);
  });
  const seen = docs.map((d) => d.shard!.index).sort((a, b) => a - b);
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.includes(i));
  if (missing.length) problems.push(`shards ${missing.map((i) => `${i}/${count}`).join(', ')} missing: give every shard's directory`);
  if (new Set(seen).size !== seen.length) problems.push('a shard is given twice');
  if (problems.length) throw new UsageError(problems.map((p) => `merge: ${p}`));
  const lines = dirs.flatMap((d) =>
    readFileSync(join(d, EVAL_JSONL), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>),
  );
  const repeat = Math.max(1, ...lines.map((l) => Number(l.repeat) + 1));
  const summary = summarizeEval(first.set, first.grading, lines.map(outcomeOf), repeat);
  const doc: EvalDocument = { ...summary, sampling: first.sampling, performance: { shards: docs.map((d) => ({ index: d.shard!.index, ...d.performance })) } };
  if (existsSync(join(outDir, EVAL_JSON)) && !overwrite) throw new UsageError([`merge: --out ${outDir} already holds an eval.json: give --overwrite or another directory`]);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, EVAL_JSONL), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  writeFileSync(join(outDir, EVAL_JSON), JSON.stringify(doc, null, 2) + '\n');
  return doc;
}
