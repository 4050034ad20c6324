// Where a block keeps one metric's values: every value (ExactStore), or, for inter-token gaps, exact up to a limit and
// then an HDR histogram (ItlStore). The aggregator (aggregator.ts) holds one store per metric per block.
import { createRequire } from 'node:module';
import type { Histogram } from 'hdr-histogram-js';
import { percentileFields, type DistStats } from './stats.js';
import { ci95Of, distStatsCi } from './ci95.js';
import { Column } from './column.js';

/** ITL gaps kept exactly (8 bytes each) up to this many per block; beyond it they move to an HDR histogram (docs/metrics.md). */
export const ITL_EXACT_LIMIT = 1_000_000;

/** Significant decimal digits the ITL histogram keeps: a percentile is within 0.1% of the exact value (at µs resolution). */
export const ITL_HISTOGRAM_DIGITS = 3;

// hdr-histogram-js loads its wasm build (base64 + inflate) on import: 6-13 MB and 45-115 ms at every start-up,
// for a histogram that only a run past ITL_EXACT_LIMIT gaps needs. So it is loaded then (docs/performance.md).
const require = createRequire(import.meta.url);
const buildHistogram = (): Histogram =>
  (require('hdr-histogram-js') as typeof import('hdr-histogram-js')).build({ numberOfSignificantValueDigits: ITL_HISTOGRAM_DIGITS, useWebAssembly: false });

/**
 * Inter-token gaps: exact up to `exactLimit` values, then an HDR histogram of microseconds (mergeable, fixed size).
 * count, min, max and mean stay exact in both modes; stdev = √(Σx²/n − mean²) and percentiles come from the histogram,
 * and so do the ends of their intervals: the order statistic of rank i is the histogram's value at 100·(i+1)/n %.
 */
export class ItlStore {
  private exact: Column | undefined = new Column();
  private hist: Histogram | undefined;
  private n = 0;
  /** Σ gaps in whole µs (stored times are µs-rounded), an integer so the sum does not depend on record order. */
  private sumUs = 0;
  private sumSqMs = 0;
  private min = Infinity;
  private max = -Infinity;
  constructor(readonly exactLimit = ITL_EXACT_LIMIT) {}
  get exactMode(): boolean {
    return this.exact !== undefined;
  }
  add(gapMs: number): void {
    this.n++;
    this.sumUs += Math.round(gapMs * 1000);
    this.sumSqMs += gapMs * gapMs;
    if (gapMs < this.min) this.min = gapMs;
    if (gapMs > this.max) this.max = gapMs;
    if (this.exact) {
      this.exact.push(gapMs);
      if (this.exact.length <= this.exactLimit) return;
      this.hist = buildHistogram();
      for (const v of this.exact.values()) this.record(v);
      this.exact = undefined;
      return;
    }
    this.record(gapMs);
  }
  private record(gapMs: number): void {
    this.hist!.recordValue(Math.max(0, Math.round(gapMs * 1000)));
  }
  /** Every gap, or null once they moved to the histogram (a store made with exactLimit Infinity never moves). */
  values(): Float64Array | null {
    return this.exact ? this.exact.values() : null;
  }
  stats(asked?: readonly number[]): DistStats {
    if (this.exact) return distStatsCi(this.exact.values(), asked);
    const h = this.hist!;
    const mean = this.sumUs / 1000 / this.n;
    const at = (p: number) => h.getValueAtPercentile(p) / 1000;
    const stdev = Math.sqrt(Math.max(0, this.sumSqMs / this.n - mean * mean));
    return {
      count: this.n,
      mean,
      stdev,
      min: this.min,
      max: this.max,
      ...percentileFields(at, asked),
      ci95: ci95Of(this.n, mean, stdev, (i) => at((100 * (i + 1)) / this.n), asked),
    };
  }
}

/** One metric's values: exact (a Column) or, for metrics stored as a histogram (ITL), an ItlStore. */
export interface MetricStore {
  add(x: number): void;
  stats(asked?: readonly number[]): DistStats;
  values(): Float64Array | null;
}

/** Every value kept, so percentiles are exactly those of distStats (and carry their ci95). */
export class ExactStore implements MetricStore {
  private readonly col = new Column();
  add(x: number): void {
    this.col.push(x);
  }
  stats(asked?: readonly number[]): DistStats {
    return distStatsCi(this.col.values(), asked);
  }
  values(): Float64Array {
    return this.col.values();
  }
}
