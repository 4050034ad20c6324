// compare, per image count: TTFT p50 and p99 of baseline and candidate side by side (informational: never a regression, never --fail-on).
import type { MetricsBlock, Summary } from '../metrics/summary.js';
import type { ImagesBlock } from '../metrics/media.js';
import type { TurnTtftDelta } from './compare-turns.js';

type Pair = TurnTtftDelta['ttft_p50'];

/** One image count's TTFT in both runs; delta = candidate − baseline, relative = delta / |baseline| (null when missing or 0). */
export interface ImagesTtftDelta {
  images: string;
  baseline_requests: number;
  candidate_requests: number;
  ttft_p50: Pair;
  ttft_p99: Pair;
}

const pair = (b: number | null | undefined, c: number | null | undefined): Pair => {
  const baseline = b ?? null;
  const candidate = c ?? null;
  const delta = baseline !== null && candidate !== null ? candidate - baseline : null;
  return { baseline, candidate, delta, relative: delta !== null && baseline !== 0 ? delta / Math.abs(baseline!) : null };
};

/** The image counts either run has (summary.json by_images), in count order; undefined when neither has by_images. */
export function imagesTtftDeltas(base: MetricsBlock | undefined, cand: MetricsBlock | undefined): ImagesTtftDelta[] | undefined {
  const b = (base as Partial<Summary> | undefined)?.by_images;
  const c = (cand as Partial<Summary> | undefined)?.by_images;
  if (!b && !c) return undefined;
  const keys = [...new Set([...Object.keys(b ?? {}), ...Object.keys(c ?? {})])].sort((x, y) => parseInt(x, 10) - parseInt(y, 10));
  return keys.map((images) => {
    const bi: ImagesBlock | undefined = b?.[images];
    const ci: ImagesBlock | undefined = c?.[images];
    return {
      images,
      baseline_requests: bi?.requests ?? 0,
      candidate_requests: ci?.requests ?? 0,
      ttft_p50: pair(bi?.ttft_ms.p50, ci?.ttft_ms.p50),
      ttft_p99: pair(bi?.ttft_ms.p99, ci?.ttft_ms.p99),
    };
  });
}
