// Open-loop trace replay of a whole trace (default: the 12,031-request Mooncake conversation trace): what building each
// request costs on the thread that schedules it, how much memory the replay holds, and whether a real replay keeps up.
// Run after `npm run build`:
//   node bench/trace-replay.mjs [TRACE] [--speed 10] [--duration 60] [--worker] [--no-run] [--json]
// Part 1 (in process, no server): the workload's first pass (send times only), then next(i) for every request, timed one
// by one (the token-exact prompt, its ceiling share, the spec), with the heap before and after.
// Part 2: `run --replay TRACE --replay-speed X --duration S` against bench/emitter.mjs (own process, streams 16 tokens
// per request, 5 ms apart), --concurrency 4000 (a true open loop): send lag (schedule_lag_ms) and the client's health,
// with each prompt built when due (the default) or, with --worker, ahead on the prompt worker thread.
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createWorkload } from '../dist/dataset/workload.js';
import { loadTokenizer } from '../dist/dataset/tokenizer.js';
import { resolveRunConfig } from '../dist/config/load.js';
import { createRng } from '../dist/util/rng.js';
import { run } from '../dist/run.js';
import { OPEN_LOOP_TUNING } from '../dist/dataset/trace/replay/open-loop.js';
import { startEmitter } from './procs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : dflt;
};
const has = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? (args.splice(i, 1), true) : false;
};
const speed = Number(flag('--speed', '10'));
const durationS = Number(flag('--duration', '60'));
const noRun = has('--no-run');
const inline = !has('--worker');
const asJson = has('--json');
const file = args[0] ?? [join(root, '..', 'shared'), join(root, '..', '..', 'shared')].map((d) => join(d, 'traces', 'mooncake-conversation.jsonl')).find(existsSync);
if (!file) throw new Error('no trace given and no ../shared/traces/mooncake-conversation.jsonl');

const cpuS = (a) => {
  const d = process.cpuUsage(a);
  return (d.user + d.system) / 1e6;
};
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const dist = (xs) => {
  const s = Float64Array.from(xs).sort();
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, mean: +mean.toFixed(3), p50: +pct(s, 50).toFixed(3), p99: +pct(s, 99).toFixed(3), max: +s[s.length - 1].toFixed(3) };
};
const mib = (b) => +(b / 2 ** 20).toFixed(1);

// Part 1: building the requests, one at a time, on this thread (no worker: its cost is what is measured).
const workerFrom = OPEN_LOOP_TUNING.workerFrom;
OPEN_LOOP_TUNING.workerFrom = Infinity;
const tok = loadTokenizer('cl100k_base');
const config = resolveRunConfig({ flags: { replay: file, endpoint: 'completions', replaySpeed: speed, concurrency: 4000, warmup: 0 } }).config;
globalThis.gc?.();
const heap0 = process.memoryUsage().heapUsed;
let t0 = performance.now();
let c0 = process.cpuUsage();
const w = createWorkload(config, tok, createRng(1), undefined);
const firstPass = { wall_s: +((performance.now() - t0) / 1000).toFixed(3), cpu_s: +cpuS(c0).toFixed(3), requests: w.size };
const perRequest = [];
let tokens = 0;
let heapPeak = 0;
c0 = process.cpuUsage();
t0 = performance.now();
for (let i = 0; i < w.size; i++) {
  const a = performance.now();
  const s = w.next(i);
  perRequest.push(performance.now() - a);
  tokens += s.inputTokens;
  if (i % 500 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
}
const build = { wall_s: +((performance.now() - t0) / 1000).toFixed(2), cpu_s: +cpuS(c0).toFixed(2), tokens, ms_per_request: dist(perRequest) };
globalThis.gc?.();
const times = w.arrivalTimesMs;
const spanS = times[times.length - 1] / 1000;
const memory = { heap_before_mib: mib(heap0), heap_peak_sampled_mib: mib(heapPeak), heap_after_mib: mib(process.memoryUsage().heapUsed), send_times_bytes: times.byteLength };
const need = { requests_per_s: +(w.size / spanS).toFixed(1), span_s: +spanS.toFixed(1), busy_share_of_one_core: +((build.cpu_s / spanS) * 100).toFixed(1) };
const out = { trace: file, speed, first_pass: firstPass, build, memory, need, ceiling_tokens: w.describe().ceiling_tokens };

// Part 2: a real replay of the first `durationS` seconds (scaled) against the emitter.
OPEN_LOOP_TUNING.workerFrom = inline ? workerFrom : 0;
if (!noRun) {
  const em = await startEmitter({ intervalMs: 5, batch: 1 });
  try {
    const outDir = mkdtempSync(join(tmpdir(), 'tf-trace-replay-'));
    const c1 = process.cpuUsage();
    const res = await run({ baseUrl: `http://127.0.0.1:${em.port}/v1`, model: 'bench', replay: file, replaySpeed: speed, duration: durationS, concurrency: 4000, maxTokens: 16, warmup: 0, out: outDir, quiet: true, serverMetrics: false });
    const lag = res.records.map((r) => r.schedule_lag_ms ?? 0);
    const client = res.summary.client ?? {};
    out.run = {
      duration_s: durationS,
      requests: res.records.length,
      ok: res.records.filter((r) => r.status === 'ok').length,
      workers: res.summary.run.workers,
      prompts: inline ? 'inline' : 'worker thread',
      prompts_built_ahead: res.summary.run.workload.prompts_built_ahead,
      schedule_lag_ms: dist(lag),
      late_over_10ms: lag.filter((x) => x > 10).length,
      client_event_loop_delay_ms: client.event_loop_delay_ms,
      client_cpu_percent: client.cpu_percent,
      process_cpu_s: +cpuS(c1).toFixed(1),
    };
  } finally {
    em.stop();
  }
}

if (asJson) console.log(JSON.stringify(out, null, 2));
else {
  const b = build.ms_per_request;
  console.log(`trace ${file}: ${w.size} requests over ${need.span_s} s at --replay-speed ${speed} (${need.requests_per_s} req/s needed)`);
  console.log(`first pass (send times only): ${firstPass.cpu_s} CPU-s, ${memory.send_times_bytes} bytes of send times`);
  console.log(`building every request on the scheduling thread: ${build.cpu_s} CPU-s for ${(tokens / 1e6).toFixed(1)} M tokens; per request mean ${b.mean} ms, p50 ${b.p50}, p99 ${b.p99}, max ${b.max}; ${need.busy_share_of_one_core}% of one core at this speed`);
  console.log(`heap: ${memory.heap_before_mib} MiB before, ${memory.heap_peak_sampled_mib} MiB peak (sampled), ${memory.heap_after_mib} MiB after`);
  if (out.run) {
    const r = out.run;
    console.log(`replay of the first ${durationS} s: ${r.requests} requests (${r.ok} ok), prompts ${r.prompts} (${r.prompts_built_ahead ?? 0} built ahead), --workers ${r.workers}; schedule_lag_ms p50 ${r.schedule_lag_ms.p50}, p99 ${r.schedule_lag_ms.p99}, max ${r.schedule_lag_ms.max}; ${r.late_over_10ms} later than 10 ms`);
    console.log(`client event loop delay ${JSON.stringify(r.client_event_loop_delay_ms)}, cpu ${JSON.stringify(r.client_cpu_percent)}`);
  }
}
