// Writing an eval's results: eval.jsonl (one line per answer) and eval.json (the summary beside the run's performance).
import type { OutputComparison } from '../eval/compare-outputs.js';
import type { Summary } from '../metrics/summary.js';
import type { ResultFiles, RunEndEvent } from '../report/events.js';
import { outcomeLine, type EvalSummary } from '../eval/summary.js';
import type { EvalOutcome } from '../eval/workload.js';
import type { UnderLoadPlan } from '../eval/under-load.js';
import { EVAL_JSON, EVAL_JSONL } from '../eval/file-names.js';

export { EVAL_JSON, EVAL_JSONL };

/** The run's headline performance, kept beside the accuracy in eval.json. */
export function performanceOf(s: Summary): Record<string, unknown> {
  return {
    requests: s.requests.total, error_rate: s.requests.error_rate, duration_s: s.duration_s,
    request_throughput: s.request_throughput, output_throughput: s.output_throughput,
    ttft_ms: { p50: s.ttft_ms.p50, p99: s.ttft_ms.p99 }, tpot_ms: { p50: s.tpot_ms.p50, p99: s.tpot_ms.p99 }, e2e_ms: { p50: s.e2e_ms.p50, p99: s.e2e_ms.p99 },
  };
}

export type EvalDocument = EvalSummary & {
  performance: Record<string, unknown>;
  sampling: Record<string, unknown>;
  /** eval --shard I/N: which shard, of how many, and the items of the whole set (tokenflood merge checks them). */
  shard?: { index: number; count: number; set_items: number };
  /** eval --compare-outputs URL: this run's answers against the second target's, item by item. */
  output_comparison?: OutputComparison;
};

/** Save both files through the run's ledger (a write failure is collected and named, never thrown). */
export function saveEvalFiles(e: RunEndEvent, outcomes: readonly EvalOutcome[], doc: EvalDocument): void {
  const sorted = [...outcomes].sort((a, b) => a.requestId - b.requestId);
  e.files.save(EVAL_JSONL, () => sorted.map((x) => JSON.stringify(outcomeLine(x))).join('\n') + (sorted.length ? '\n' : ''));
  e.files.save(EVAL_JSON, () => JSON.stringify(doc, null, 2) + '\n');
}

/** --eval-under-load's eval.jsonl (every probe and baseline answer, with its level) and eval.json; returns the summary. */
export function saveUnderLoadFiles(files: Pick<ResultFiles, 'save'>, plan: UnderLoadPlan): EvalSummary {
  const summary = plan.summary();
  const lines = plan.outcomes().map((x) => JSON.stringify(outcomeLine(x)));
  files.save(EVAL_JSONL, () => lines.join('\n') + (lines.length ? '\n' : ''));
  files.save(EVAL_JSON, () => JSON.stringify(summary, null, 2) + '\n');
  return summary;
}
