// The stderr warning for dataset or trace records skipped at load time: how many, and the first few file:line reasons.
import { safeTerminalText } from '../report/format.js';
import type { Reporter } from '../report/events.js';
import { promptCacheWarning } from '../metrics/prompt-cache.js';

/** At a run's end: the warning when a prefix cache answered prompts the workload meant to be fresh (summary.prompt_cache). */
export function promptCacheReporter(err: NodeJS.WritableStream, prefix: string, label = ''): Reporter {
  return {
    name: 'prompt cache warning',
    runEnd: (e) => {
      const w = promptCacheWarning(e.summary);
      if (w) err.write(`${prefix}WARNING: ${label}${safeTerminalText(w, 600)}\n`);
    },
  };
}

/** Reasons listed on the terminal; run.json keeps the first 20 under workload.warnings. */
export const SHOWN_REASONS = 5;

/** The warning text for a workload description (workload.describe()), each line starting with `prefix`; '' when nothing was skipped. */
export function workloadWarningText(w: Record<string, unknown> | undefined, prefix: string): string {
  return workloadWarnings(w)
    .map((l) => (l.startsWith(' ') ? `${l}\n` : `${prefix}${l}\n`))
    .join('');
}

/** Warning lines (reasons indented), or none when nothing was skipped. */
export function workloadWarnings(w: Record<string, unknown> | undefined): string[] {
  if (!w) return [];
  const bad = typeof w.skipped_bad_records === 'number' ? w.skipped_bad_records : 0;
  const tooLong = typeof w.skipped_over_max_model_len === 'number' ? w.skipped_over_max_model_len : 0;
  const out: string[] = [];
  if (bad > 0) {
    const reasons = (Array.isArray(w.warnings) ? (w.warnings as unknown[]) : []).slice(0, Math.min(bad, SHOWN_REASONS)).map((r) => `  ${safeTerminalText(String(r), 300)}`);
    const flag = w.kind === 'replay' ? '--replay' : '--dataset';
    out.push(`warning: ${flag} ${safeTerminalText(String(w.file), 200)}: ${bad} bad record${bad === 1 ? '' : 's'} skipped (--strict makes them an error):`, ...reasons);
    if (bad > reasons.length) out.push(`  ... and ${bad - reasons.length} more (the first 20 are in run.json under workload.warnings)`);
  }
  if (tooLong > 0) out.push(`warning: ${tooLong} ${w.kind === 'replay' ? 'requests' : 'items'} skipped: input + max_tokens exceeds --max-model-len ${String(w.max_model_len)}`);
  return out;
}
