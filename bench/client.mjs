// Bench client (own process): drives tokenflood's real request path against the emitter and measures itself.
//
// `node --expose-gc bench/client.mjs '<scenario json>'` prints one JSON result line on stdout.
// kind 'streams': N closed-loop workers call executeRequest (dist/backends/execute.js, the function run() calls
//   for every request, with the same undici Agent settings) and we compare each content event's client time
//   with the server stamp it carries. Shared clock: performance.timeOrigin + performance.now() in both processes.
//     client_abs = timeOrigin + t0 + sent_at_ms + event_times_ms[i]   (run clock: now() = performance.now() − t0)
//     raw_error  = client_abs − server_stamp                          (includes the loopback floor)
// kind 'run': the whole tool, run() from dist/index.js, closed or open loop; schedule lag and rate from its records.
import { agentFor } from '../dist/backends/sender.js';
import { cpus, availableParallelism } from 'node:os';
import { rmSync } from 'node:fs';
import { executeRequest } from '../dist/backends/execute.js';
import { run } from '../dist/index.js';
import { startHealthMonitor } from '../dist/metrics/health.js';
import { summarize, sleep, machineTicks, machineBusyPct, measureWindow } from './stats.mjs';

const sc = JSON.parse(process.argv[2]);
const gc = globalThis.gc ?? (() => {});
const mem = () => {
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
};

async function streams() {
  const { port, streams: n, tokens, warmMs, windowMs, rampMs } = sc;
  const url = `http://127.0.0.1:${port}/v1/chat/completions`;
  // The same transport run() uses by default (tokenflood's HTTP/1.1 pool for http://); BENCH_TRANSPORT=undici compares.
  const agent = await agentFor({ connections: n, origin: `http://127.0.0.1:${port}`, transport: process.env.BENCH_TRANSPORT ?? 'h1' });
  const headers = { 'content-type': 'application/json' };
  const body = JSON.stringify({
    model: 'bench',
    messages: [{ role: 'user', content: 'x '.repeat(1000) }],
    max_tokens: tokens,
    stream: true,
    stream_options: { include_usage: true },
  });
  // Errors land in a preallocated array so the memory figure is not inflated by the bench's own bookkeeping.
  const errs = new Float64Array(sc.maxSamples ?? 4_000_000);
  let nErr = 0;
  let events = 0;
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const base = performance.timeOrigin + t0;
  const win = { start: Infinity, end: Infinity };
  let stopping = false;
  let failed = 0;
  let requests = 0;
  const before = mem();

  const one = async (id) => {
    const res = await executeRequest({
      id, warmup: false, cls: undefined, url, headers, body, stream: true,
      expectedInputTokens: 1000, maxTokens: tokens, scheduledAtMs: now(), timeoutMs: 600_000, dispatcher: agent, now,
    });
    const r = res.raw;
    requests++;
    if (r.status !== 'ok') {
      failed++;
      return;
    }
    const stamps = res.answerText.split('|');
    const kinds = r.event_kinds;
    let s = 0;
    for (let i = 0; i < kinds.length; i++) {
      if (kinds[i] !== 'a') continue;
      const tc = r.sent_at_ms + r.event_times_ms[i];
      const stamp = Number(stamps[s++]);
      if (tc < win.start || tc >= win.end) continue;
      events++;
      if (nErr < errs.length) errs[nErr++] = base + tc - stamp;
    }
  };
  const worker = async (i) => {
    await sleep((rampMs * i) / n);
    while (!stopping) await one(i);
  };
  const all = Array.from({ length: n }, (_, i) => worker(i));
  await sleep(warmMs);
  const { cpu, machineBusy, h } = await measureWindow(now, windowMs, win, startHealthMonitor);
  const during = mem(); // streams still open: what N open streams cost
  stopping = true;
  await Promise.all(all);
  await agent.close();
  const wall = win.end - win.start;
  return {
    events,
    eventsPerS: (events / wall) * 1000,
    cpuMs: (cpu.user + cpu.system) / 1000,
    cpuSystemMs: cpu.system / 1000,
    wallMs: wall,
    machineBusyPct: machineBusy,
    requests,
    failed,
    rawErrorMs: summarize(Array.from(errs.subarray(0, nErr))),
    health: h,
    memPerStream: { rssKB: (during.rss - before.rss) / 1024 / n, heapKB: (during.heap - before.heap) / 1024 / n, externalKB: (during.external - before.external) / 1024 / n },
  };
}

async function wholeRun() {
  const out = `/tmp/tokenflood-bench-${process.pid}`;
  let health;
  let t0;
  let cpu0;
  let m0;
  const res = await run(
    { baseUrl: `http://127.0.0.1:${sc.port}/v1`, out, overwrite: true, quiet: true, ...(sc.config.rate ? { arrival: 'constant' } : {}), ...sc.config },
    {
      hooks: {
        onStart: () => {
          // Measure from the first request on: tokenizer loading and prompt synthesis before it are not load.
          cpu0 = process.cpuUsage();
          m0 = machineTicks();
          t0 = performance.now();
          health = startHealthMonitor(() => performance.now());
        },
        onRecord: (r) => health.recordSendLag(r.schedule_lag_ms),
      },
    },
  );
  const h = health.stop();
  const cpu = process.cpuUsage(cpu0);
  const machineBusy = machineBusyPct(m0, machineTicks());
  const wall = performance.now() - t0;
  rmSync(out, { recursive: true, force: true });
  const recs = res.records;
  const sent = recs.map((r) => r.sent_at_ms).sort((a, b) => a - b);
  const ok = recs.filter((r) => r.status === 'ok').length;
  const events = recs.reduce((a, r) => a + r.event_times_ms.length, 0);
  const spanMs = sent[sent.length - 1] - sent[0];
  return {
    requests: recs.length,
    ok,
    events,
    eventsPerS: (events / wall) * 1000,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: wall,
    machineBusyPct: machineBusy,
    achievedRate: sc.config.rate ? ((sent.length - 1) / spanMs) * 1000 : null,
    scheduleLagMs: summarize(recs.map((r) => r.sent_at_ms - r.scheduled_at_ms)),
    health: h,
  };
}

const result = sc.kind === 'run' ? await wholeRun() : await streams();
const cores = availableParallelism();
result.cpuPctOneCore = (result.cpuMs / result.wallMs) * 100;
result.cpuPctMachine = result.cpuPctOneCore / cores;
result.cpuUsPerEvent = result.events ? (result.cpuMs * 1000) / result.events : null;
result.machine = { cpu: cpus()[0]?.model, cores, node: process.version };
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(0);
