// A/B of two builds of the hot path: CPU per event of executeRequest from dist A vs dist B, interleaved in one process.
//
// `node bench/ab.mjs <distA> <distB> [streams=1000] [phases=8]`, e.g. a copy of dist/ built from the previous
// commit against the current dist/. One client process loads both builds' executeRequest; N closed-loop streams
// run against bench/emitter.mjs (own process) and every PHASE_MS the build used for new requests flips A, B, A, …
// CPU and events are counted in a window that starts once every request of the previous build has finished.
// Interleaving in one process over the same connections means both builds see the same foreign load, which on a
// shared machine moves the separate-process figures of bench/run.mjs by more than the difference being measured.
import { Agent } from 'undici';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { startEmitter } from './procs.mjs';
import { sleep, machineTicks, machineBusyPct } from './stats.mjs';

const [distA, distB, nArg, phasesArg] = process.argv.slice(2);
if (!distA || !distB) {
  console.error('usage: node bench/ab.mjs <distA> <distB> [streams] [phases]');
  process.exit(2);
}
const load = async (d) => (await import(pathToFileURL(resolve(d, 'backends/execute.js')).href)).executeRequest;
const builds = [await load(distA), await load(distB)];
const n = Number(nArg ?? 1000);
const phases = Number(phasesArg ?? 8);
const TOKENS = 100; // × 20 ms: a request lasts ~2 s
const SETTLE_MS = 2400; // a request started just before the flip is done by then
const PHASE_MS = 5500;
const RAMP_MS = 2000;

const em = await startEmitter({ intervalMs: 20 });
const url = `http://127.0.0.1:${em.port}/v1/chat/completions`;
const agent = new Agent({ connections: n, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });
const headers = { 'content-type': 'application/json' };
const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'x '.repeat(1000) }], max_tokens: TOKENS, stream: true, stream_options: { include_usage: true } });
const t0 = performance.now();
const now = () => performance.now() - t0;

let current = 0; // index of the build new requests use
let stopping = false;
let failed = 0;
/** Measurement windows, one per phase: [start, end) on the run clock, and the content events timed inside. */
const windows = [];

/** Content events, and the reads that carried them (events of one read share its timestamp), per window. */
function countEvents(raw) {
  const kinds = raw.event_kinds;
  const times = raw.event_times_ms;
  for (const w of windows) {
    for (let i = 0; i < kinds.length; i++) {
      const t = raw.sent_at_ms + times[i];
      if (kinds[i] !== 'a' || t < w.start || t >= w.end) continue;
      w.events++;
      if (i === 0 || times[i] !== times[i - 1]) w.reads++;
    }
  }
}

async function worker(i) {
  await sleep((RAMP_MS * i) / n);
  while (!stopping) {
    const b = current;
    const res = await builds[b]({
      id: i, warmup: false, cls: undefined, url, headers, body, stream: true,
      expectedInputTokens: 1000, maxTokens: TOKENS, scheduledAtMs: now(), timeoutMs: 600_000, dispatcher: agent, now,
    });
    if (res.raw.status !== 'ok') failed++;
    else countEvents(res.raw);
  }
}

const all = Array.from({ length: n }, (_, i) => worker(i));
await sleep(RAMP_MS + 2500); // every stream started and code warm
for (let p = 0; p < phases; p++) {
  current = p % 2;
  await sleep(SETTLE_MS);
  const w = { build: current === 0 ? 'A' : 'B', start: now(), end: Infinity, events: 0, reads: 0 };
  windows.push(w);
  const e0 = await em.stats();
  const cpu0 = process.cpuUsage();
  const m0 = machineTicks();
  await sleep(PHASE_MS - SETTLE_MS - 100);
  const cpu = process.cpuUsage(cpu0);
  const busy = machineBusyPct(m0, machineTicks());
  w.end = now();
  const e1 = await em.stats();
  w.cpuMs = (cpu.user + cpu.system) / 1000;
  const wall = w.end - w.start;
  w.clientPct = (w.cpuMs / wall) * 100;
  w.emitPct = ((e1.cpuMs - e0.cpuMs) / (e1.wallMs - e0.wallMs)) * 100;
  w.otherPct = busy === null ? null : Math.max(0, busy - (w.clientPct + w.emitPct) / availableParallelism());
  await sleep(100);
}
stopping = true;
await Promise.all(all);
await agent.close();
em.stop();

const rows = windows.map((w) => ({ ...w, usPerEvent: (w.cpuMs * 1000) / w.events, usPerRead: (w.cpuMs * 1000) / w.reads, eventsPerRead: w.events / w.reads, eventsPerS: (w.events / (w.end - w.start)) * 1000 }));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const f = (x, d = 1) => (x === null ? '–' : x.toFixed(d));
console.log(`${n} streams, ${phases} phases of ${PHASE_MS / 1000} s (window ${(PHASE_MS - SETTLE_MS - 100) / 1000} s), failed requests ${failed}`);
console.log('phase build events/s  µs/ev ev/read µs/read cpu%1c emit% other%');
rows.forEach((r, i) => console.log(`${String(i + 1).padStart(5)} ${r.build.padStart(5)} ${f(r.eventsPerS, 0).padStart(8)} ${f(r.usPerEvent, 2).padStart(6)} ${f(r.eventsPerRead, 3).padStart(7)} ${f(r.usPerRead, 2).padStart(7)} ${f(r.clientPct).padStart(7)} ${f(r.emitPct).padStart(5)} ${f(r.otherPct).padStart(6)}`));
const summary = {};
for (const b of ['A', 'B']) {
  const rs = rows.filter((r) => r.build === b);
  summary[b] = { usPerEventMedian: median(rs.map((r) => r.usPerEvent)), usPerReadMedian: median(rs.map((r) => r.usPerRead)), eventsPerSMedian: median(rs.map((r) => r.eventsPerS)), otherPctMedian: median(rs.map((r) => r.otherPct ?? 0)) };
}
const delta = ((summary.B.usPerEventMedian - summary.A.usPerEventMedian) / summary.A.usPerEventMedian) * 100;
const deltaRead = ((summary.B.usPerReadMedian - summary.A.usPerReadMedian) / summary.A.usPerReadMedian) * 100;
console.log(`median µs/ev  A ${f(summary.A.usPerEventMedian, 2)}  B ${f(summary.B.usPerEventMedian, 2)}  (B − A) / A = ${f(delta)} %`);
console.log(`median µs/read  A ${f(summary.A.usPerReadMedian, 2)}  B ${f(summary.B.usPerReadMedian, 2)}  (B − A) / A = ${f(deltaRead)} %`);
console.log(JSON.stringify({ streams: n, phases, failed, summary, deltaPct: delta, deltaReadPct: deltaRead, windows: rows }));
process.exit(0);
