// The targets judged against one bench run's rows: met, not met (by how much), or not measured.
const row = (rows, name) => rows.find((r) => r.name === name);

/** Each target with the figure measured and a verdict; a target whose scenario did not run says so. */
export function judgeTargets(rows) {
  const t = [];
  const add = (target, r, figure, ok, by) =>
    t.push({ target, measured: r ? figure(r) : 'not measured (scenario not run)', verdict: !r ? 'n/a' : ok(r) ? 'met' : `NOT met (${by(r)})` });
  add('>= 100,000 SSE events/s at <= 60% of the machine', row(rows, 's2000'),
    (r) => `${Math.round(r.events_per_s)} events/s at ${r.client_cpu_pct_machine.toFixed(0)}% of the machine`,
    (r) => r.events_per_s >= 100_000 && r.client_cpu_pct_machine <= 60, (r) => `${(100_000 / r.events_per_s).toFixed(1)}x short`);
  add('2,000 open streams at <= 64 KB each', row(rows, 's2000'), (r) => `${r.mem_kb_per_stream?.toFixed(1)} KB per stream`,
    (r) => r.mem_kb_per_stream <= 64, (r) => `${(r.mem_kb_per_stream / 64).toFixed(1)}x over`);
  add('timing error p50 <= 0.2 ms at 256 streams', row(rows, 's256'), (r) => `${r.timing_err_p50_ms.toFixed(2)} ms`,
    (r) => r.timing_err_p50_ms <= 0.2, (r) => `${(r.timing_err_p50_ms / 0.2).toFixed(1)}x over`);
  add('timing error p99 <= 1 ms at 256 streams', row(rows, 's256'), (r) => `${r.timing_err_p99_ms.toFixed(2)} ms`,
    (r) => r.timing_err_p99_ms <= 1, (r) => `${r.timing_err_p99_ms.toFixed(1)}x over`);
  add('timing error p99 <= 5 ms at 1,000 streams', row(rows, 's1000'), (r) => `${r.timing_err_p99_ms.toFixed(2)} ms`,
    (r) => r.timing_err_p99_ms <= 5, (r) => `${(r.timing_err_p99_ms / 5).toFixed(1)}x over`);
  add('open loop at 1,000 req/s: rate within 0.5%', row(rows, 'open1000'), (r) => `${r.achieved_rate.toFixed(1)}/1000 (${r.rate_error_pct.toFixed(2)}%)`,
    (r) => Math.abs(r.rate_error_pct) <= 0.5, (r) => `${Math.abs(r.rate_error_pct).toFixed(1)}% off`);
  add('open loop at 1,000 req/s: send lag p99 <= 1 ms', row(rows, 'open1000'), (r) => `${r.sched_lag_p99_ms.toFixed(2)} ms`,
    (r) => r.sched_lag_p99_ms <= 1, (r) => `${r.sched_lag_p99_ms.toFixed(1)}x over`);
  add('event-loop delay p99 <= 1 ms (at 256 streams)', row(rows, 's256'), (r) => `${r.eld_p99_ms.toFixed(2)} ms`,
    (r) => r.eld_p99_ms <= 1, (r) => `${r.eld_p99_ms.toFixed(1)}x over`);
  return t;
}

export function printTargets(targets) {
  console.log('\ntargets:');
  for (const x of targets) console.log(`  ${x.verdict.padEnd(22)} ${x.target}: ${x.measured}`);
}
