// Live aggregator: counters, and sliding-window rates and TTFT median, for progress displays (snapshots on an interval).
import type { RequestRecord } from './record.js';
import { percentile } from './stats.js';

export interface LiveSnapshot {
  elapsedS: number;
  done: number;
  ok: number;
  failed: number;
  inFlight: number;
  /**
   * Median TTFT of the measured requests whose first token arrived in the last WINDOW_MS, taken at the first token
   * when the sender notes it (else at completion, for ok requests); null when there is none yet.
   */
  ttftP50Ms: number | null;
  /** 90th and 99th percentile (linear interpolation, as the summary) of the same window's TTFTs. */
  ttftP90Ms: number | null;
  ttftP99Ms: number | null;
  /** Output tokens of measured requests so far: events counted as they arrive, exact once each request ends. */
  outputTokens: number;
  /** Output tokens per second over the last WINDOW_MS, counted as the content events arrive. */
  outputTokS: number;
  /** Measured requests finished per second over the last WINDOW_MS. */
  requestsPerS: number;
}

/** The live line describes the recent past: long enough to smooth bursts, short enough to show a change. */
export const WINDOW_MS = 10_000;
/** TTFTs are kept in buckets of this length; the window's median reads the buckets it covers. */
const BUCKET_MS = 1000;

/** Content events (answer or reasoning chunks) in a record: the ones the request sender's event counter counted. */
export function contentEvents(r: Pick<RequestRecord, 'event_kinds'>): number {
  let n = 0;
  const k = r.event_kinds ?? '';
  for (let i = 0; i < k.length; i++) if (k[i] === 'a' || k[i] === 'R') n++;
  return n;
}

/**
 * `firstTokens` (optional) drains the TTFTs the request sender noted at each measured request's first token: the live
 * TTFT shows as soon as the first token arrives, not when the first request ends. Records that had a content event
 * were counted then, so `finished` adds only the others (a non-streamed reply with no event).
 *
 * `arrivedEvents` (optional) is the request sender's running count of content events of every request in flight, read
 * at each snapshot: tokens are counted as they arrive, one per content event. When a request finishes, the
 * difference to its final count (its output_tokens if ok and measured, else 0) is added, so over the whole run the
 * total equals the sum of measured output tokens, and in between it moves with the stream, not in steps.
 */
export class LiveAggregator {
  done = 0;
  ok = 0;
  failed = 0;
  inFlight = 0;
  /** Final-count corrections: Σ (counted tokens − content events) over finished requests. */
  private correction = 0;
  /** (time, cumulative output tokens, cumulative measured done) at past snapshots, oldest first, spanning WINDOW_MS. */
  private history: [number, number, number][] = [];
  /** TTFT samples by bucket number (floor(t / BUCKET_MS)); buckets older than the window are dropped. */
  private ttftBuckets = new Map<number, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly arrivedEvents?: () => number,
    private readonly firstTokens?: () => number[],
  ) {
    this.history.push([now(), 0, 0]);
  }

  started(): void {
    this.inFlight++;
  }

  finished(r: RequestRecord): void {
    this.inFlight--;
    const counted = this.arrivedEvents === undefined ? 0 : contentEvents(r);
    const final = !r.warmup && r.status === 'ok' ? (r.output_tokens ?? 0) : 0;
    this.correction += final - counted;
    if (r.warmup) return;
    this.done++;
    if (r.status === 'ok') {
      this.ok++;
      if (r.ttft_ms !== null && !(this.firstTokens && contentEvents(r) > 0)) this.addTtft([r.ttft_ms]);
    } else if (r.status !== 'cancelled') this.failed++;
  }

  private addTtft(xs: readonly number[]): void {
    if (!xs.length) return;
    const b = Math.floor(this.now() / BUCKET_MS);
    const bucket = this.ttftBuckets.get(b);
    if (bucket) for (const x of xs) bucket.push(x);
    else this.ttftBuckets.set(b, [...xs]);
  }

  snapshot(): LiveSnapshot {
    const t = this.now();
    if (this.firstTokens) this.addTtft(this.firstTokens());
    const tokens = (this.arrivedEvents?.() ?? 0) + this.correction;
    this.history.push([t, tokens, this.done]);
    while (this.history.length > 2 && t - this.history[1][0] >= WINDOW_MS) this.history.shift();
    const [t0, n0, d0] = this.history[0];
    const span = t - t0;
    return {
      elapsedS: t / 1000,
      done: this.done,
      ok: this.ok,
      failed: this.failed,
      inFlight: this.inFlight,
      ...this.windowTtft(t),
      outputTokens: tokens,
      // A failed request's early events are taken back when it ends: never show a negative rate for it.
      outputTokS: span > 0 ? Math.max(0, ((tokens - n0) * 1000) / span) : 0,
      requestsPerS: span > 0 ? ((this.done - d0) * 1000) / span : 0,
    };
  }

  /** Median, p90 and p99 (linear interpolation, as the summary) of the TTFTs recorded in the buckets that overlap the last WINDOW_MS. */
  private windowTtft(t: number): Pick<LiveSnapshot, 'ttftP50Ms' | 'ttftP90Ms' | 'ttftP99Ms'> {
    const first = Math.floor((t - WINDOW_MS) / BUCKET_MS);
    let n = 0;
    for (const [b, v] of this.ttftBuckets) {
      if (b < first) this.ttftBuckets.delete(b);
      else n += v.length;
    }
    if (n === 0) return { ttftP50Ms: null, ttftP90Ms: null, ttftP99Ms: null };
    const all = new Float64Array(n);
    let i = 0;
    for (const v of this.ttftBuckets.values()) for (const x of v) all[i++] = x;
    all.sort();
    return { ttftP50Ms: percentile(all, 50), ttftP90Ms: percentile(all, 90), ttftP99Ms: percentile(all, 99) };
  }
}
