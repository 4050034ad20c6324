// Anomalous points of one sweep slice, pure over its rows: throughput drops, variance spikes, error bursts, client-bound levels.
import { loadWords, type LoadMode, type SweepRow } from '../report/sweep-model.js';

export type AnomalyKind = 'throughput_drop' | 'variance_spike' | 'error_burst' | 'client_bound';

export interface Anomaly {
  kind: AnomalyKind;
  /** The level the anomaly is at. */
  load: number;
  /** Names of the points it rests on (the level, and the level it is compared with). */
  points: string[];
  /** The finding in plain words. */
  detail: string;
}

/** More load, this much less output throughput than the level below: a drop, not noise. */
export const THROUGHPUT_DROP = 0.1;
/** A level's variation is a spike above this multiple of the slice's median variation... */
export const VARIANCE_SPIKE_FACTOR = 2;
/** ...and at least this much above it in absolute terms (coefficient of variation). */
export const VARIANCE_SPIKE_MIN = 0.2;
/** Failed requests a level needs before its errors can be a burst (one stray failure is not). */
export const ERROR_BURST_MIN_FAILED = 2;

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
const n0 = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(x >= 10 ? 1 : 2));

/** The larger of a level's TPOT and E2E coefficients of variation, null when neither was measured. */
export const variationOf = (r: Pick<SweepRow, 'tpot_cv' | 'e2e_cv'>): number | null =>
  r.tpot_cv === null && r.e2e_cv === null ? null : Math.max(r.tpot_cv ?? 0, r.e2e_cv ?? 0);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The anomalies of one slice (rows of one input/output pair), each naming its points:
 * - throughput_drop: output throughput falls by more than THROUGHPUT_DROP from one measured level to the next higher one;
 * - variance_spike: a level's variation (variationOf) exceeds VARIANCE_SPIKE_FACTOR × the median over the slice's
 *   levels and the median + VARIANCE_SPIKE_MIN (at least 3 levels measured);
 * - error_burst: a level with at least ERROR_BURST_MIN_FAILED failures whose error rate is more than twice that of a
 *   higher level: errors that do not grow with load point to a transient fault, not the limit;
 * - client_bound: the load generator itself was the bottleneck at the level.
 */
export function findAnomalies(rows: readonly SweepRow[], mode: LoadMode): Anomaly[] {
  const w = (r: SweepRow) => loadWords(mode, r.load);
  const measured = rows.filter((r) => r.status !== 'failed' && r.ok > 0).sort((a, b) => a.load - b.load);
  const out: Anomaly[] = [];
  for (let i = 1; i < measured.length; i++) {
    const [a, b] = [measured[i - 1], measured[i]];
    if (a.output_throughput > 0 && b.output_throughput < a.output_throughput * (1 - THROUGHPUT_DROP))
      out.push({
        kind: 'throughput_drop',
        load: b.load,
        points: [a.name, b.name],
        detail: `output throughput falls ${pct(1 - b.output_throughput / a.output_throughput)} from ${w(a)} (${n0(a.output_throughput)} tok/s) to ${w(b)} (${n0(b.output_throughput)} tok/s) with more load`,
      });
  }
  const varied = measured.filter((r) => variationOf(r) !== null);
  if (varied.length >= 3) {
    const med = median(varied.map((r) => variationOf(r) as number));
    for (const r of varied) {
      const v = variationOf(r) as number;
      if (v > VARIANCE_SPIKE_FACTOR * med && v >= med + VARIANCE_SPIKE_MIN)
        out.push({
          kind: 'variance_spike',
          load: r.load,
          points: [r.name],
          detail: `latency variation spikes at ${w(r)}: coefficient of variation ${v.toFixed(2)} (TPOT ${r.tpot_cv?.toFixed(2) ?? 'n/a'}, E2E ${r.e2e_cv?.toFixed(2) ?? 'n/a'}) against a median of ${med.toFixed(2)} over the ${varied.length} levels measured`,
        });
    }
  }
  for (const r of measured) {
    if (r.failed < ERROR_BURST_MIN_FAILED || r.error_rate <= 0) continue;
    const calmer = measured.find((h) => h.load > r.load && h.error_rate < r.error_rate / 2);
    if (calmer)
      out.push({
        kind: 'error_burst',
        load: r.load,
        points: [r.name, calmer.name],
        detail: `error burst at ${w(r)}: ${pct(r.error_rate)} of requests failed (${r.failed}), but only ${pct(calmer.error_rate)} at the higher ${w(calmer)}, so the errors do not come from load alone`,
      });
  }
  for (const r of measured.filter((x) => x.client_bound === true))
    out.push({ kind: 'client_bound', load: r.load, points: [r.name], detail: `client-bound at ${w(r)}: the load generator was the bottleneck, so this level may show the client's limit, not the server's` });
  return out.sort((a, b) => a.load - b.load);
}
