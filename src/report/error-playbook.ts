// The error playbook as shown: each failure code of a run with its count and what to check (terminal and report.html).
import type { CodeCount, MetricsBlock } from '../metrics/summary-model.js';
import { errorHint } from '../metrics/error-hints.js';
import { safeTerminalText } from './format.js';

/** Failure codes with their hint, most frequent first; a summary written before hints existed gets them now. */
export function playbookRows(m: MetricsBlock): (CodeCount & { hint: string })[] {
  const codes = m.requests.errors_by_code ?? [];
  return codes.flatMap((e) => {
    const hint = e.hint ?? errorHint(e.code, e.kind);
    return hint ? [{ ...e, hint }] : [];
  });
}

/** Terminal lines: "what to check:" and one line per failure code (codes come from records: escaped all the same). */
export function playbookLines(m: MetricsBlock): string[] {
  const rows = playbookRows(m);
  if (!rows.length) return [];
  return ['what to check:', ...rows.map((r) => `  ${safeTerminalText(r.code)} (${r.count}): ${r.hint}`)];
}
