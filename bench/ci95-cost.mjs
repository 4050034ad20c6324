// The cost of summary.json's ci95 (docs/performance.md): SummaryAggregator.summary() over 100,000 synthetic requests
// (128 output tokens each, two classes), timed in a fresh process. `node bench/ci95-cost.mjs [DIST_DIR] [REQUESTS]`:
// run it against this build's dist/ and a build without ci95 to get the time added; `--ci-only` times the added work alone.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const n = Number(process.argv[3] ?? 100_000);
const mod = (p) => import(pathToFileURL(resolve(dist, p)).href);

// `--ci-only`: the added work alone, in a fresh process: ci95Of over the distributions of such a summary (13 over n
// values, 13 per class over n/2), given their sorted values; cold (jstat's first load, the ranks and t quantiles
// computed) and warm (cached). The whole-summary timing below varies by more than that on a shared machine.
if (process.argv.includes('--ci-only')) {
  const { ci95Of } = await mod('metrics/ci95.js');
  const { sortedDistStats } = await mod('metrics/stats.js');
  const col = (k) => Float64Array.from({ length: k }, () => Math.random() * 1000).sort();
  const cols = [...Array.from({ length: 13 }, () => col(n)), ...Array.from({ length: 26 }, () => col(n / 2))];
  const stats = cols.map((c) => sortedDistStats(c));
  const pass = () => {
    const t = performance.now();
    cols.forEach((c, i) => ci95Of(c.length, stats[i].mean, stats[i].stdev, (r) => c[r]));
    return performance.now() - t;
  };
  const cold = pass();
  const warm = pass();
  // Small blocks (classes, turns of a few hundred requests): exact binomial ranks, once per (n, p).
  const t = performance.now();
  for (let k = 100; k < 2000; k += 50) ci95Of(k, 1, 1, () => 1);
  console.log(JSON.stringify({ requests: n, ci95_cold_ms: +cold.toFixed(2), ci95_warm_ms: +warm.toFixed(2), exact_ranks_38_sizes_ms: +(performance.now() - t).toFixed(1) }));
  process.exit(0);
}
const { SummaryAggregator } = await mod('metrics/aggregator.js');
const { toRecord } = await mod('metrics/derive.js');
const { normalizeRaw } = await mod('metrics/jsonl.js');
const { NO_CONNECTION } = await mod('metrics/record.js');
const { createRng } = await mod('util/rng.js');

const rng = createRng(29);
const agg = new SummaryAggregator();
for (let id = 0; id < n; id++) {
  const ttft = 80 + 400 * rng.next() ** 3;
  const events = Array.from({ length: 128 }, (_, k) => ttft + k * (7 + rng.next() * 3));
  const end = events[127] + 1;
  agg.add(toRecord(normalizeRaw({
    ...NO_CONNECTION, id, attempt: 1, reconnected: false, warmup: false, class: id % 2 ? 'a' : 'b', status: 'ok', http_status: 200, error: null, code: null,
    scheduled_at_ms: id * 10, sent_at_ms: id * 10, headers_ms: 5, end_ms: end, streamed: true, event_times_ms: events, event_kinds: 'a'.repeat(128),
    reasoning_chars: 0, answer_chars: 512, input_tokens: 512, output_tokens: 128, reasoning_tokens: 0, cached_tokens: null, token_source: 'usage',
    expected_input_tokens: 512, max_tokens: 128, finish_reason: 'stop', usage_rejected: null, events_after_done: 0,
  })));
}
// CPU time as well as wall time: on a shared machine the wall time varies by seconds between runs.
const t0 = performance.now();
const c0 = process.cpuUsage();
const s = agg.summary({}, 64);
const cpu = process.cpuUsage(c0);
const ms = performance.now() - t0;
console.log(JSON.stringify({ dist, requests: n, summary_ms: Math.round(ms), summary_cpu_ms: Math.round((cpu.user + cpu.system) / 1000), ci95: 'ci95' in s.ttft_ms, itl_gaps: s.itl_ms.count }));
