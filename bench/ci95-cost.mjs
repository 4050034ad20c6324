// The cost of summary.json's ci95 (docs/performance.md): SummaryAggregator.summary() over 100,000 synthetic requests
// (128 output tokens each, two classes), timed in a fresh process. `node bench/ci95-cost.mjs [DIST_DIR] [REQUESTS]`:
// run it against this build's dist/ and a build without ci95 to get the time added.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const n = Number(process.argv[3] ?? 100_000);
const mod = (p) => import(pathToFileURL(resolve(dist, p)).href);
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
const t0 = performance.now();
const s = agg.summary({}, 64);
const ms = performance.now() - t0;
console.log(JSON.stringify({ dist, requests: n, summary_ms: Math.round(ms), ci95: 'ci95' in s.ttft_ms, itl_gaps: s.itl_ms.count }));
