// Calibration points answered from a prefix cache they did not ask for are left out of the fit, each with a line naming it.
import { UsageError } from '../errors.js';
import { promptCacheWarning } from '../metrics/prompt-cache.js';

/** The summary's prompt-cache warning (summary.prompt_cache, or recomputed for older summaries), as a point field. */
export function cacheWarningOf(summary: Record<string, unknown>): { cacheWarning?: string } {
  const w = promptCacheWarning(summary);
  return w ? { cacheWarning: w.replace(/\s+/g, ' ').slice(0, 400) } : {};
}

/**
 * The points to fit: those without an unintended prefix-cache share. Their TTFT is that of cached prompts, which
 * the fit would read as prefill cost (step overhead 0.48 ms against a true 0.1 ms). Each one left out gets a line
 * from `notice`; none left is a UsageError (exit 2).
 */
export function withoutCachedPoints<P extends { dir: string; cacheWarning?: string }>(points: readonly P[], notice: (line: string) => void): P[] {
  const kept = points.filter((p) => !p.cacheWarning);
  for (const p of points) if (p.cacheWarning) notice(`skipped ${p.dir}: ${p.cacheWarning}; re-measure it with fresh prompts (without --dataset-seed) to use it`);
  if (points.length > 0 && kept.length === 0) throw new UsageError(['calibrate: every run given was answered from a prefix cache it did not ask for (see the lines above): nothing left to fit on']);
  return kept;
}
