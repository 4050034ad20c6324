// Bench table: one row per scenario from the raw results, floor subtracted; printed as fixed-width text.
const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));

/** Combine the client results of one scenario (several when split over processes). */
function combine(s, floor, cores) {
  const rs = s.results;
  const sum = (k) => rs.reduce((a, r) => a + (r[k] ?? 0), 0);
  const worst = (g) => Math.max(...rs.map(g).filter((x) => x !== null && x !== undefined));
  const r0 = rs[0];
  const cpuOne = sum('cpuPctOneCore');
  const events = sum('events');
  const row = {
    name: s.name,
    load: s.title,
    events_per_s: sum('eventsPerS'),
    client_cpu_pct_one_core: cpuOne,
    client_cpu_pct_machine: cpuOne / cores,
    cpu_us_per_event: events ? (sum('cpuMs') * 1000) / events : null,
    emitter_cpu_pct_one_core: s.emitterPctOneCore,
    other_load_pct_machine: r0.machineBusyPct === null ? null : Math.max(0, r0.machineBusyPct - (cpuOne + s.emitterPctOneCore) / cores),
    eld_p50_ms: worst((r) => r.health.event_loop_delay_ms.p50),
    eld_p99_ms: worst((r) => r.health.event_loop_delay_ms.p99),
    failed: sum('failed'),
  };
  if (r0.rawErrorMs) {
    const perStream = (s.streams ?? 0) >= 64; // fixed process overhead swamps a per-stream figure below that
    row.timing_err_p50_ms = worst((r) => r.rawErrorMs.p50) - floor;
    row.timing_err_p99_ms = worst((r) => r.rawErrorMs.p99) - floor;
    row.raw_err_p50_ms = worst((r) => r.rawErrorMs.p50);
    if (perStream) row.mem_kb_per_stream = worst((r) => r.memPerStream.heapKB + r.memPerStream.externalKB);
    if (perStream) row.rss_kb_per_stream = worst((r) => r.memPerStream.rssKB);
  }
  if (r0.scheduleLagMs) {
    row.sched_lag_p50_ms = r0.scheduleLagMs.p50;
    row.sched_lag_p99_ms = r0.scheduleLagMs.p99;
    row.requests = r0.requests;
  }
  if (r0.achievedRate) {
    row.target_rate = s.target.rate;
    row.achieved_rate = r0.achievedRate;
    row.rate_error_pct = ((r0.achievedRate - s.target.rate) / s.target.rate) * 100;
  }
  return row;
}

export function printTable(report) {
  const cores = report.machine.cores;
  const fl = report.scenarios.find((s) => s.name === 'floor' && s.results);
  const floor = fl ? fl.results[0].rawErrorMs.p50 : 0;
  const rows = report.scenarios.filter((s) => s.results).map((s) => combine(s, floor, cores));
  const cols = [
    ['scenario', (r) => r.name, 8],
    ['events/s', (r) => f(r.events_per_s, 0), 8],
    ['cpu%1c', (r) => f(r.client_cpu_pct_one_core), 6],
    ['cpu%mc', (r) => f(r.client_cpu_pct_machine), 6],
    ['µs/ev', (r) => f(r.cpu_us_per_event), 6],
    ['KB/str', (r) => f(r.mem_kb_per_stream), 6],
    ['RSS/str', (r) => f(r.rss_kb_per_stream), 7],
    ['err p50', (r) => f(r.timing_err_p50_ms, 2), 7],
    ['err p99', (r) => f(r.timing_err_p99_ms, 2), 7],
    ['eld p50', (r) => f(r.eld_p50_ms, 2), 7],
    ['eld p99', (r) => f(r.eld_p99_ms, 2), 7],
    ['lag p50', (r) => f(r.sched_lag_p50_ms, 3), 7],
    ['lag p99', (r) => f(r.sched_lag_p99_ms, 3), 7],
    ['rate', (r) => (r.achieved_rate ? `${f(r.achieved_rate, 1)}/${r.target_rate}` : '–'), 11],
    ['emit%', (r) => f(r.emitter_cpu_pct_one_core), 5],
    ['other%', (r) => f(r.other_load_pct_machine), 6],
  ];
  const line = (cells) => cells.map((c, i) => String(c).padStart(cols[i][2])).join(' ');
  console.log(`\n${report.machine.cpu}, ${cores} cores, ${report.machine.memGB} GB, node ${report.machine.node}; floor (1-stream median) ${f(floor, 3)} ms`);
  console.log(line(cols.map((c) => c[0])));
  for (const r of rows) console.log(line(cols.map((c) => c[1](r))));
  console.log(
    'cpu%1c/cpu%mc: client CPU as % of one core / of the machine. µs/ev: client CPU per event. KB/str: heap+buffers per open stream (RSS/str: RSS).\n' +
      'err: client time − server stamp − floor. eld: event-loop delay. lag: sent − scheduled. emit%: emitter CPU (one core). other%: machine load not ours.',
  );
  return rows;
}
