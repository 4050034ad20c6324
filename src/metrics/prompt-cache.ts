// Was the run answered from a prefix cache it did not ask for? Its cached prompt-token share, and the warning when so.
import type { DistStats } from './stats.js';

/** A cached share above this, without a workload that asks for cache hits, is warned about (docs/output-format.md#prompt-cache). */
export const CACHED_SHARE_THRESHOLD = 0.1;

/** summary.json `prompt_cache`: present when the server reported cached prompt tokens on some ok request. */
export interface PromptCacheCheck {
  /** Σ cached_tokens / Σ input_tokens over the measured ok requests. */
  cached_share: number;
  threshold: number;
  /** The option that makes cache hits part of the workload (`--prefix-tokens`, `--cache-ab`, ...), or null. */
  cache_workload: string | null;
  /** Set when cached_share > threshold and cache_workload is null: the figures are not those of uncached prompts. */
  warning: string | null;
}

/** Sums of one metrics block that the check needs: cached and prompt tokens of ok measured requests. */
export interface TokenSums {
  cached: number;
  /** Requests that reported cached_tokens. */
  cachedCount: number;
  input: number;
}

/** The two distributions of a metrics block (summary.json of any version) the check reads. */
type TokenDists = { cached_tokens?: DistStats; input_tokens?: DistStats };

/** Σ cached and Σ prompt tokens of a block's ok requests, from its distributions (mean × count). */
export function tokenSums(m: TokenDists): TokenSums {
  const sum = (d: DistStats | undefined) => (d?.mean ?? 0) * (d?.count ?? 0);
  return { cached: sum(m.cached_tokens), cachedCount: m.cached_tokens?.count ?? 0, input: sum(m.input_tokens) };
}

/** The workload option that asks for prefix-cache hits, from run.json `workload` (workload.describe()), or null. */
export function cacheWorkload(w: Record<string, unknown> | undefined): string | null {
  if (!w) return null;
  if (w.kind === 'cache-ab') return '--cache-ab';
  if (w.kind === 'replay') return '--replay';
  if (typeof w.prefix_tokens === 'number' && w.prefix_tokens > 0) return '--prefix-tokens';
  if (w.cache_bust === false) return '--no-cache-bust';
  if (typeof w.conversations === 'number' && w.conversations > 0) return 'multi-turn dataset';
  return null;
}

/** Why prompts could repeat an earlier run's, for the warning. */
function likelyCause(w: Record<string, unknown> | undefined): string {
  if (w?.prompts === 'seeded') return 'the prompts are seeded by --dataset-seed, so they repeat an earlier run with that seed; drop --dataset-seed for fresh prompts';
  if (w?.kind === 'dataset') return 'the dataset prompts were sent to this server before (an earlier run, another client)';
  return 'the server had these prompts cached from earlier traffic';
}

/**
 * The check for one run: undefined when no ok request reported cached_tokens (the server does not say).
 * cached_share = Σ cached_tokens / Σ input_tokens of the measured ok requests.
 */
export function promptCacheCheck(sums: TokenSums, workload: Record<string, unknown> | undefined): PromptCacheCheck | undefined {
  if (sums.cachedCount === 0 || sums.input <= 0) return undefined;
  const share = Math.min(1, sums.cached / sums.input);
  const why = cacheWorkload(workload);
  const warn = why === null && share > CACHED_SHARE_THRESHOLD;
  return {
    cached_share: share,
    threshold: CACHED_SHARE_THRESHOLD,
    cache_workload: why,
    warning: warn
      ? `${(share * 100).toFixed(1)}% of prompt tokens were answered from the server's prefix cache (above ${CACHED_SHARE_THRESHOLD * 100}%) without a cache workload: TTFT and prefill throughput are those of cached prompts; ${likelyCause(workload)}`
      : null,
  };
}

/** The warning of a summary (summary.json of any version: recomputed from its distributions when it has no prompt_cache), or undefined. */
export function promptCacheWarning(summary: TokenDists & { prompt_cache?: unknown; run?: unknown }): string | undefined {
  const run = summary.run as { workload?: Record<string, unknown> } | undefined;
  const p = (summary.prompt_cache ?? (summary.cached_tokens && summary.input_tokens ? promptCacheCheck(tokenSums(summary), run?.workload) : undefined)) as Partial<PromptCacheCheck> | undefined;
  return p && typeof p.warning === 'string' ? p.warning : undefined;
}
