// The summary's `cancellation` block: requests the client cancelled on purpose (--cancel-after, --cancel-rate).
import type { RequestRecord } from './record.js';

export interface CancellationSummary {
  /** Measured requests cancelled by the client (code E_CANCELLED_BY_CLIENT). */
  cancelled: number;
  /** cancelled ÷ measured requests (total, any status). */
  rate: number;
  /** Send → cancel (the record's end_ms), ms: mean, p50, max. */
  cancel_after_ms: { mean: number; p50: number; max: number };
  /** Cancelled requests that had received any answer or reasoning text (a first token) by then. */
  with_first_token: number;
  /** Output tokens they had received by then (server usage, else counted with the run's tokenizer): sum and mean per request. */
  tokens_received: { total: number; mean: number };
}

/** Counts the client's cancels as records arrive; `summary()` is undefined when there was none. */
export class CancellationAggregator {
  private total = 0;
  private readonly afterMs: number[] = [];
  private withFirst = 0;
  private tokens = 0;

  add(r: RequestRecord): void {
    if (r.warmup) return;
    this.total++;
    if (r.code !== 'E_CANCELLED_BY_CLIENT') return;
    this.afterMs.push(r.end_ms ?? 0);
    if (r.answer_chars + r.reasoning_chars > 0) this.withFirst++;
    this.tokens += r.output_tokens ?? 0;
  }

  summary(): CancellationSummary | undefined {
    const n = this.afterMs.length;
    if (n === 0) return undefined;
    const sorted = [...this.afterMs].sort((a, b) => a - b);
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    return {
      cancelled: n,
      rate: r3(n / this.total),
      // p50: the lower median (an observed value).
      cancel_after_ms: { mean: r3(sorted.reduce((a, b) => a + b, 0) / n), p50: r3(sorted[Math.floor((n - 1) / 2)]), max: r3(sorted[n - 1]) },
      with_first_token: this.withFirst,
      tokens_received: { total: this.tokens, mean: r3(this.tokens / n) },
    };
  }
}
