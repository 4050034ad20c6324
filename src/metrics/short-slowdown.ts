// Short-vs-long baseline (--short-baseline): how much the long requests of a mixed run slow its short ones down,
// the short requests' TTFT/TPOT/E2E in the mixed run against a short-only run at the same load (docs/metrics.md#short-vs-long-baseline).
import { welchTest } from './inference/index.js';
import { distStats } from './stats.js';
import type { RequestRecord } from './record.js';

export const SLOWDOWN_METRICS = ['ttft_ms', 'tpot_ms', 'e2e_ms'] as const;
type SlowdownMetric = (typeof SLOWDOWN_METRICS)[number];

export interface SideStats {
  count: number;
  mean: number | null;
  p50: number | null;
  p99: number | null;
}

export interface SlowdownRow {
  baseline: SideStats;
  mixed: SideStats;
  /** mixed mean − baseline mean, ms; positive = the long requests slowed the short ones. */
  difference_ms: number | null;
  /** Welch's 95% interval of that difference; null with fewer than 2 values a side. */
  difference_ci95: [number, number] | null;
  /** Welch's two-sided p of "no difference". */
  p: number | null;
  /** mixed mean / baseline mean (1 = no slowdown). */
  ratio: number | null;
  /** mixed p99 / baseline p99. */
  p99_ratio: number | null;
}

export interface ShortBaselineSummary {
  /** The baseline ran because the workload was mixed-length (true), or because --short-baseline asked for it (false). */
  automatic: boolean;
  /** How the baseline's size was chosen, e.g. "a quarter of the mixed run's 60 requests, at least 20, at most 200: 20 requests". */
  size_rule: string;
  /** Requests whose intended prompt is below this many tokens are short. */
  threshold_tokens: number;
  /** The short-only run's directory. */
  baseline_dir: string;
  /**
   * Closed loop: the first wave (the first --concurrency measured requests of each run, sent together to an idle server)
   * is left out of the values of both runs; 0 for an open loop. Its share is concurrency / requests, larger in a smaller baseline.
   */
  first_wave_excluded: number;
  /** Measured requests of the mixed run below and at or above the threshold, and of the baseline. */
  mixed_short_requests: number;
  mixed_long_requests: number;
  baseline_requests: number;
  rows: Record<SlowdownMetric, SlowdownRow>;
}

/** A request's intended prompt length (as the length bands take it). */
const promptTokens = (r: RequestRecord): number => r.expected_input_tokens || (r.input_tokens ?? 0);

/** Collects the per-request TTFT/TPOT/E2E of ok measured short requests, and counts short and long ones. */
export class ShortValues {
  short = 0;
  long = 0;
  readonly values: Record<SlowdownMetric, number[]> = { ttft_ms: [], tpot_ms: [], e2e_ms: [] };
  /** `firstValueId`: requests with a lower id (warmup and the first wave) are counted but give no values. */
  constructor(
    private readonly threshold: number,
    private readonly firstValueId = 0,
  ) {}
  add(r: RequestRecord): void {
    if (r.warmup) return;
    if (promptTokens(r) >= this.threshold) {
      this.long++;
      return;
    }
    this.short++;
    if (r.status !== 'ok' || r.id < this.firstValueId) return;
    for (const m of SLOWDOWN_METRICS) {
      const v = r[m];
      if (typeof v === 'number') this.values[m].push(v);
    }
  }
}

function side(v: readonly number[]): SideStats {
  const d = distStats(Float64Array.from(v));
  return { count: d.count, mean: d.count ? d.mean : null, p50: d.p50, p99: d.p99 };
}

const ratio = (a: number | null, b: number | null): number | null => (a !== null && b !== null && b > 0 ? a / b : null);

/** The slowdown block: each metric's baseline and mixed figures, difference with Welch's interval, and ratios. */
export function shortSlowdown(baseline: ShortValues, mixed: ShortValues, threshold: number, baselineDir: string, how: { automatic: boolean; sizeRule: string; firstWave?: number } = { automatic: false, sizeRule: "the mixed run's size" }): ShortBaselineSummary {
  const rows = {} as Record<SlowdownMetric, SlowdownRow>;
  for (const m of SLOWDOWN_METRICS) {
    const a = baseline.values[m];
    const b = mixed.values[m];
    const [sa, sb] = [side(a), side(b)];
    const w = welchTest(a, b);
    rows[m] = {
      baseline: sa,
      mixed: sb,
      difference_ms: sa.mean !== null && sb.mean !== null ? sb.mean - sa.mean : null,
      difference_ci95: w?.ci ? [w.ci[0], w.ci[1]] : null,
      p: w ? w.p : null,
      ratio: ratio(sb.mean, sa.mean),
      p99_ratio: ratio(sb.p99, sa.p99),
    };
  }
  return { automatic: how.automatic, size_rule: how.sizeRule, first_wave_excluded: how.firstWave ?? 0, threshold_tokens: threshold, baseline_dir: baselineDir, mixed_short_requests: mixed.short, mixed_long_requests: mixed.long, baseline_requests: baseline.short + baseline.long, rows };
}
