// The terminal's lines for time slices, the throughput interval, the steady state and the over-saturation verdict (docs/metrics.md#time-slices).
import type { Summary } from '../metrics/summary.js';
import { fmt, table } from './format.js';

/** At most this many slice rows; longer runs show every k-th slice (and the last), with a note. */
const MAX_SLICE_ROWS = 30;

const range = (ci: [number, number] | null | undefined): string | null => (ci ? `${fmt(ci[0])}–${fmt(ci[1])}` : null);

/** The throughput line's 95% intervals (batch means), when the summary has them. */
export function throughputCiLine(s: Summary): string | null {
  const req = range(s.ci95?.request_throughput);
  if (!req) return null;
  const out = range(s.ci95?.output_throughput);
  return `throughput 95% CI (batch means over time slices): ${req} req/s${out && s.sample_throughput === undefined ? `, output ${out} tok/s` : ''}`;
}

/** What --warmup auto trimmed, and the saturation verdict when the run was over-saturated. */
export function steadyAndSaturationLines(s: Summary): string[] {
  const out: string[] = [];
  const st = s.steady_state;
  if (st)
    out.push(
      st.note
        ? `steady state (--warmup auto, ${st.rule}): ${st.note}`
        : `steady state (--warmup auto, ${st.rule} on ${st.series}): trimmed the transient before ${fmt(st.trimmed_s)} s of the run clock, ${st.trimmed_requests} request${st.trimmed_requests === 1 ? '' : 's'} left out (${st.truncated_batches} of ${st.batches} batches)`,
    );
  // A run stopped by it already says so in its STOPPED EARLY line.
  if (s.saturation?.saturated && !s.saturation.stopped) out.push(`OVER-SATURATED: ${s.saturation.detail}; the figures describe a queue that was still growing (docs/metrics.md#over-saturation)`);
  return out;
}

/** The compact per-slice table (--slice): completions, rates, in-flight and TTFT/E2E by slice. */
export function sliceTableLines(s: Summary): string[] {
  const sl = s.slices;
  if (!sl || sl.series.length === 0) return [];
  const every = Math.ceil(sl.series.length / MAX_SLICE_ROWS);
  const shown = sl.series.filter((x, i) => i % every === 0 || i === sl.series.length - 1);
  const rows = shown.map((x) => [
    `${fmt(x.start_s)}–${fmt(x.end_s)}`,
    String(x.completed),
    String(x.failed),
    fmt(x.request_throughput),
    fmt(x.output_throughput),
    fmt(x.mean_in_flight),
    fmt(x.ttft_ms.p50),
    fmt(x.ttft_ms.p99),
    fmt(x.e2e_ms.p50),
  ]);
  const head = `time slices of ${fmt(sl.slice_s)} s (a request counts in the slice it completed in)${every > 1 ? `, every ${every}th shown: summary.json has all ${sl.series.length}` : ''}:`;
  return ['', head, table(['slice (s)', 'done', 'failed', 'req/s', 'out tok/s', 'in flight', 'TTFT p50', 'TTFT p99', 'E2E p50'], rows)];
}
