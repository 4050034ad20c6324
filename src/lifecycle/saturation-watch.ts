// --stop-on-saturation: the over-saturation test run live at each slice boundary, on in-flight samples and the TTFTs of requests completed in each slice.
import type { DriverClock } from '../drivers/driver.js';
import type { LiveAggregator } from '../metrics/live.js';
import type { RequestRecord } from '../metrics/record.js';
import { saturationTest, type SaturationPoint } from '../metrics/saturation.js';
import type { SaturationSummary } from '../metrics/summary-model.js';

/** In-flight samples per slice: their mean stands for the time-weighted mean the summary computes from the records. */
const SAMPLES_PER_SLICE = 10;
/** Without --slice the live test uses slices of this length. */
export const LIVE_SLICE_S = 10;

/**
 * Watch the run in slices of `sliceS` from when it starts: each slice's point is the mean of SAMPLES_PER_SLICE in-flight
 * samples and the mean TTFT of the ok requests completed in it (warmup ones included: the question is the server's).
 * At each boundary the test of metrics/saturation.ts runs on the full slices so far; the first saturated verdict
 * calls `onSaturated` once (the run's stop: no new requests, in-flight ones get the grace period).
 */
export class SaturationWatch {
  private readonly points: SaturationPoint[] = [];
  private ttftSum = 0;
  private ttftN = 0;
  private inFlightSum = 0;
  private samples = 0;
  private readonly stopTimer = new AbortController();
  verdict: SaturationSummary | undefined;
  constructor(
    private readonly sliceS: number,
    private readonly agg: Pick<LiveAggregator, 'inFlight'>,
    private readonly clock: DriverClock,
    private readonly onSaturated: (v: SaturationSummary) => void,
  ) {}

  record(r: RequestRecord): void {
    if (r.status !== 'ok' || r.ttft_ms === null) return;
    this.ttftSum += r.ttft_ms;
    this.ttftN++;
  }

  /** Take one in-flight sample; every SAMPLES_PER_SLICE samples close a slice and run the test. */
  private tick(): void {
    this.inFlightSum += this.agg.inFlight;
    if (++this.samples < SAMPLES_PER_SLICE) return;
    const k = this.points.length;
    this.points.push({ t: (k + 0.5) * this.sliceS, inFlight: this.inFlightSum / this.samples, ttftMs: this.ttftN ? this.ttftSum / this.ttftN : null });
    this.inFlightSum = this.samples = this.ttftSum = this.ttftN = 0;
    if (this.verdict) return;
    const v = saturationTest(this.points, this.sliceS, true);
    if (!v?.saturated) return;
    this.verdict = v;
    this.onSaturated(v);
  }

  /** Start sampling on the run clock (a virtual clock's timers are events on it, in order with the requests). */
  start(virtual: boolean): void {
    const every = (this.sliceS * 1000) / SAMPLES_PER_SLICE;
    if (!virtual) {
      const timer = setInterval(() => this.tick(), every);
      timer.unref();
      this.stopTimer.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
      return;
    }
    const sig = this.stopTimer.signal;
    const t0 = this.clock.now();
    void (async () => {
      for (let at = t0 + every; !sig.aborted; at += every) {
        await this.clock.sleepUntil(at, sig);
        if (!sig.aborted) this.tick();
      }
    })();
  }

  stop(): void {
    this.stopTimer.abort();
  }
}
