// What a sweep needs from a point's records, counted as they arrive so nothing is read back: goodput and the box sample.
import { GoodRequestCount, type Slo } from '../metrics/slo.js';
import type { Reporter } from '../report/events.js';
import { CHART_SAMPLE_MAX } from '../report/results-dir.js';
import { boxOf, type BoxValues } from '../report/html/sweep-report.js';
import type { BoxStats } from '../report/html/sweep-charts.js';
import { EvenSample } from '../util/even-sample.js';

export interface PointTally extends Reporter {
  /** Good requests under the sweep's SLO (sweepRow's goodput columns). */
  readonly goodput: GoodRequestCount;
  /** The level's box for the sweep report: the even sample of measured ok records that boxStats would read from disk. */
  box(load: number): BoxStats;
}

/** A reporter on one point's run: every record it sees is the one requests.jsonl keeps, in the same order. */
export function pointTally(slo: Slo | undefined): PointTally {
  const goodput = new GoodRequestCount(slo);
  const sample = new EvenSample<BoxValues>(CHART_SAMPLE_MAX);
  return {
    name: 'sweep point tally',
    goodput,
    record: (r) => {
      goodput.add(r);
      if (!r.warmup && r.status === 'ok') sample.add({ ttft_ms: r.ttft_ms, tpot_ms: r.tpot_ms, e2e_ms: r.e2e_ms });
    },
    box: (load) => boxOf(load, sample.items()),
  };
}
