// Live aggregator: counters and an HDR histogram updated per finished request; snapshots for progress displays.
import * as hdr from 'hdr-histogram-js';
import type { RequestRecord } from './record.js';

export interface LiveSnapshot {
  elapsedS: number;
  done: number;
  ok: number;
  failed: number;
  inFlight: number;
  /** Live TTFT median (HDR histogram, 3 significant digits). */
  ttftP50Ms: number | null;
  /** Output tokens per second of requests finished over the last few seconds (a sliding window). */
  outputTokS: number;
}

const WINDOW_MS = 5000;

export class LiveAggregator {
  private ttft = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
  done = 0;
  ok = 0;
  failed = 0;
  inFlight = 0;
  private outTokens = 0;
  /** (time, cumulative output tokens) at past snapshots, oldest first, spanning about WINDOW_MS. */
  private history: [number, number][] = [];

  constructor(private readonly now: () => number) {
    this.history.push([now(), 0]);
  }

  started(): void {
    this.inFlight++;
  }

  finished(r: RequestRecord): void {
    this.inFlight--;
    if (r.warmup) return;
    this.done++;
    if (r.status === 'ok') {
      this.ok++;
      if (r.ttft_ms !== null) this.ttft.recordValue(Math.max(1, Math.round(r.ttft_ms * 1000)));
      this.outTokens += r.output_tokens ?? 0;
    } else if (r.status !== 'cancelled') this.failed++;
  }

  snapshot(): LiveSnapshot {
    const t = this.now();
    this.history.push([t, this.outTokens]);
    while (this.history.length > 2 && t - this.history[1][0] >= WINDOW_MS) this.history.shift();
    const [t0, n0] = this.history[0];
    const rate = t > t0 ? ((this.outTokens - n0) * 1000) / (t - t0) : 0;
    return {
      elapsedS: t / 1000,
      done: this.done,
      ok: this.ok,
      failed: this.failed,
      inFlight: this.inFlight,
      ttftP50Ms: this.ttft.totalCount > 0 ? this.ttft.getValueAtPercentile(50) / 1000 : null,
      outputTokS: rate,
    };
  }
}
