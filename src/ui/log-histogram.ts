// A bounded histogram for the dashboard's running statistics: buckets 1% wide, so memory does not grow with the run.

/** Bucket i holds values in [BASE^i, BASE^(i+1)) ms; quantiles are then within 1% of the exact value. */
const BASE = 1.01;
const LOG_BASE = Math.log(BASE);
/** Values at or below this (ms) share bucket 0. */
const FLOOR_MS = 0.001;

export class LogHistogram {
  private readonly counts = new Map<number, number>();
  count = 0;
  min = Infinity;
  max = -Infinity;
  private sum = 0;

  record(v: number): void {
    if (!Number.isFinite(v) || v < 0) return;
    const i = v <= FLOOR_MS ? 0 : Math.max(0, Math.floor(Math.log(v / FLOOR_MS) / LOG_BASE));
    this.counts.set(i, (this.counts.get(i) ?? 0) + 1);
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  get mean(): number | null {
    return this.count ? this.sum / this.count : null;
  }

  /** Nearest-rank quantile q ∈ [0, 1], as the geometric middle of its bucket clamped to [min, max]; null when empty. */
  quantile(q: number): number | null {
    return this.quantiles([q])[0];
  }

  /** Several quantiles (ascending q) in one pass over the buckets. */
  quantiles(qs: readonly number[]): (number | null)[] {
    if (this.count === 0) return qs.map(() => null);
    const keys = Int32Array.from(this.counts.keys()).sort();
    const out: (number | null)[] = [];
    let seen = 0;
    let k = 0;
    for (const q of qs) {
      const rank = Math.max(1, Math.ceil(q * this.count));
      while (k < keys.length && seen + this.counts.get(keys[k])! < rank) seen += this.counts.get(keys[k++])!;
      out.push(k < keys.length ? Math.min(this.max, Math.max(this.min, FLOOR_MS * BASE ** (keys[k] + 0.5))) : this.max);
    }
    return out;
  }
}
