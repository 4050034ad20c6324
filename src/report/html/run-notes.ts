// The findings of one run in plain words: success, tail latency, stalls, client lag, in-flight load and SLOs.
import type { Summary } from '../../metrics/summary.js';
import type { SloResult } from '../../metrics/slo.js';
import type { Stalls } from './run-data.js';
import { num, pctText } from './sections.js';

/** How much larger than the median a p99 must be to call the tail long. */
const LONG_TAIL_RATIO = 3;

export function runNotes(s: Summary, stalls: Stalls, slo: { text: string; result: SloResult } | undefined): string[] {
  const out: string[] = [];
  const r = s.requests;
  const run = s.run as Record<string, unknown>;
  out.push(`${r.ok} of ${r.total} measured requests succeeded${r.failed ? `; ${r.failed} failed (${pctText(r.error_rate)})` : ''}${r.cancelled ? `; ${r.cancelled} were cancelled when the run stopped` : ''}.`);
  if (s.sample_throughput !== undefined) out.push(`${num(s.sample_throughput)} samples/s (${num(s.request_throughput)} req/s, input ${num(s.input_throughput)} tok/s) over ${num(s.duration_s)} s with ${num(s.mean_in_flight)} requests in flight on average.`);
  else out.push(`Output throughput ${num(s.output_throughput)} tok/s (${num(s.request_throughput)} req/s) over ${num(s.duration_s)} s with ${num(s.mean_in_flight)} requests in flight on average.`);
  if (s.saturation?.saturated) out.push(`Over-saturated: ${s.saturation.detail}. The figures describe a queue that was still growing; they depend on how long the run lasted.`);
  const st = s.steady_state;
  if (st && st.truncated_batches > 0) out.push(`--warmup auto: ${st.rule} found the transient; the ${st.trimmed_requests} requests sent before ${num(st.trimmed_s)} s are left out of the figures.`);
  const conc = (run.config as { concurrency?: number } | undefined)?.concurrency;
  if (typeof conc === 'number' && conc > 0 && s.mean_in_flight < conc * 0.8 && r.total >= conc * 2)
    out.push(`Only ${num(s.mean_in_flight)} of ${conc} concurrent slots were busy on average: ramp-up/drain or client-side delays kept the server below the intended load.`);
  for (const [label, d] of [['TTFT', s.ttft_ms], ['E2E', s.e2e_ms], ['TPOT', s.tpot_ms]] as const) {
    if (d.p50 && d.p99 && d.p99 > LONG_TAIL_RATIO * d.p50)
      out.push(`${label} has a long tail: p99 ${num(d.p99)} ms is ${(d.p99 / d.p50).toFixed(1)}x the median ${num(d.p50)} ms.`);
  }
  if (stalls.count > 0 && stalls.threshold_ms !== null) {
    const worst = stalls.points.reduce((a, b) => (b[1] > a[1] ? b : a), stalls.points[0]);
    out.push(`${stalls.count} of ${stalls.total_gaps} inter-token gaps were stalls (over ${num(stalls.threshold_ms)} ms, 5x the median gap ${num(stalls.median_itl_ms)} ms); the longest, ${num(worst[1])} ms, at ${num(worst[0])} s.`);
  } else if (stalls.total_gaps > 0) out.push(`No inter-token stalls (no gap over 5x the median gap of ${num(stalls.median_itl_ms)} ms).`);
  const lag = s.schedule_lag_ms;
  if (lag.p99 !== null && lag.p99 > 10)
    out.push(`Requests left the client late (p99 schedule lag ${num(lag.p99)} ms): the client or the concurrency cap, not only the server, shaped this load.`);
  const h = s.client;
  if (h?.client_bound) out.push(`CLIENT-BOUND: the load generator itself was a bottleneck, so latencies may include client time: ${h.reasons.join('; ')}.`);
  else if (h)
    out.push(`The client was healthy: event-loop delay p99 ${num(h.event_loop_delay_ms.p99)} ms${h.own_delay_ms ? ` (${num(h.own_delay_ms.p99)} ms of it its own work${h.idle_floor_ms ? `, idle floor ${num(h.idle_floor_ms.p99)} ms` : ''})` : ''}, ${num(h.cpu_percent.one_core, 0)}% of one core, send lag p99 ${num(h.send_lag_ms.p99)} ms.`);
  for (const w of s.media?.client.warnings ?? []) out.push(`MEDIA-ENCODE-BOUND: ${w}.`);
  if (run.simulated === true) out.push('These are predictions of the simulated engine model on a virtual clock, not measurements of a server.');
  const scale = run.sim_time_scale;
  if (typeof scale === 'number' && scale !== 1) out.push(`The simulated server ran ${scale}x faster than real time: latencies are scaled, not real.`);
  if (slo) {
    const failed = slo.result.checks.filter((c) => !c.passed).map((c) => c.name);
    out.push(
      slo.result.passed
        ? `All SLOs met (${slo.text}); goodput ${num(slo.result.goodput_req_s)} req/s.`
        : `SLOs not met: ${failed.join(', ')}; goodput ${num(slo.result.goodput_req_s)} req/s (${pctText(slo.result.good_fraction)} of requests were good).`,
    );
  }
  return out;
}
