// Writing an eval's results: eval.jsonl (one line per answer) and eval.json (the summary beside the run's performance).
import type { Summary } from '../metrics/summary.js';
import type { RunEndEvent } from '../report/events.js';
import { outcomeLine, type EvalSummary } from './summary.js';
import type { EvalOutcome } from './workload.js';
import { ARTIFACTS } from '../artifacts/registry.js';

export const EVAL_JSONL = ARTIFACTS.evalAnswers.file;
export const EVAL_JSON = ARTIFACTS.eval.file;

/** The run's headline performance, kept beside the accuracy in eval.json. */
export function performanceOf(s: Summary): Record<string, unknown> {
  return {
    requests: s.requests.total, error_rate: s.requests.error_rate, duration_s: s.duration_s,
    request_throughput: s.request_throughput, output_throughput: s.output_throughput,
    ttft_ms: { p50: s.ttft_ms.p50, p99: s.ttft_ms.p99 }, tpot_ms: { p50: s.tpot_ms.p50, p99: s.tpot_ms.p99 }, e2e_ms: { p50: s.e2e_ms.p50, p99: s.e2e_ms.p99 },
  };
}

export type EvalDocument = EvalSummary & { performance: Record<string, unknown>; sampling: Record<string, unknown> };

/** Save both files through the run's ledger (a write failure is collected and named, never thrown). */
export function saveEvalFiles(e: RunEndEvent, outcomes: readonly EvalOutcome[], doc: EvalDocument): void {
  const sorted = [...outcomes].sort((a, b) => a.requestId - b.requestId);
  e.files.save(EVAL_JSONL, () => sorted.map((x) => JSON.stringify(outcomeLine(x))).join('\n') + (sorted.length ? '\n' : ''));
  e.files.save(EVAL_JSON, () => JSON.stringify(doc, null, 2) + '\n');
}
