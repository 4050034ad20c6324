// Transport bench: undici request(), undici dispatch() and H1Pool side by side, same SSE workload, fresh processes.
//
// `node bench/h1/run.mjs` (after `npm run build`). For every stream count and driver: a fresh emitter
// (bench/emitter.mjs, one event per 20 ms per stream) and a fresh client (bench/h1/client.mjs). Drivers run
// interleaved and the whole set is repeated (H1_BENCH_REPEAT, default 2), so foreign load drifting over time
// hits every driver alike; rows with other% above H1_BENCH_NOISY_PCT (default 25) are flagged.
// Env: H1_BENCH_STREAMS=256,1000,2000  H1_BENCH_DRIVERS=request,dispatch,h1,h1data  H1_BENCH_REPEAT=2
// Writes bench/h1/results.json. Figures: see docs/performance.md (µs/ev = client CPU ÷ events in the window;
// other% = whole-machine busy % from /proc/stat − client − emitter).
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmitter as startEmitterWith, runClient as runClientScript, waitForQuiet as waitQuiet } from '../procs.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const STREAMS = (process.env.H1_BENCH_STREAMS ?? '256,1000,2000').split(',').map(Number);
const DRIVERS = (process.env.H1_BENCH_DRIVERS ?? 'request,dispatch,h1,h1data').split(',');
const REPEAT = Number(process.env.H1_BENCH_REPEAT ?? 2);
const NOISY = Number(process.env.H1_BENCH_NOISY_PCT ?? 25);
const QUIET_WAIT_S = Number(process.env.BENCH_QUIET_WAIT_S ?? 10);
const cores = availableParallelism();
const startEmitter = () => startEmitterWith({ intervalMs: 20 });
const runClient = (sc) => runClientScript(here('./client.mjs'), sc);
const waitForQuiet = (pct) => waitQuiet(pct, QUIET_WAIT_S);




async function one(driver, streams) {
  const idleBefore = await waitForQuiet(NOISY);
  const em = await startEmitter();
  const e0 = await em.stats();
  const big = streams >= 1000;
  const r = await runClient({ driver, port: em.port, streams, tokens: 100, warmMs: big ? 3500 : 2500, windowMs: 4000, rampMs: big ? 2000 : 1000 });
  const e1 = await em.stats();
  em.stop();
  const emitPct = ((e1.cpuMs - e0.cpuMs) / (e1.wallMs - e0.wallMs)) * 100;
  const otherPct = r.machineBusyPct === null ? null : Math.max(0, r.machineBusyPct - (r.cpuPctOneCore + emitPct) / cores);
  return { driver, streams, idleBeforePct: idleBefore, emitPct, otherPct, ...r };
}

const f = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));
const header = `${'driver'.padStart(9)} ${'streams'.padStart(7)} ${'events/s'.padStart(8)} ${'cpu%1c'.padStart(6)} ${'µs/ev'.padStart(6)} ${'sys µs'.padStart(6)} ${'raw p50'.padStart(7)} ${'raw p99'.padStart(7)} ${'eld p99'.padStart(7)} ${'emit%'.padStart(5)} ${'other%'.padStart(6)} fail`;
const line = (r) =>
  `${r.driver.padStart(9)} ${String(r.streams).padStart(7)} ${f(r.eventsPerS, 0).padStart(8)} ${f(r.cpuPctOneCore).padStart(6)} ${f(r.cpuUsPerEvent).padStart(6)} ${f((r.cpuSystemMs * 1000) / r.events).padStart(6)} ${f(r.rawErrorMs.p50, 2).padStart(7)} ${f(r.rawErrorMs.p99, 2).padStart(7)} ${f(r.health.event_loop_delay_ms.p99, 2).padStart(7)} ${f(r.emitPct, 0).padStart(5)} ${f(r.otherPct, 0).padStart(6)} ${r.failed}${r.otherPct > NOISY ? '  noisy' : ''}`;

console.error(`h1 transport bench on ${cpus()[0]?.model}, ${cores} cores, node ${process.version}`);
console.error(header);
const rows = [];
for (let rep = 0; rep < REPEAT; rep++) {
  for (const streams of STREAMS) {
    for (const driver of DRIVERS) {
      try {
        const r = await one(driver, streams);
        rows.push({ rep, ...r });
        console.error(line(r));
      } catch (e) {
        console.error(`${driver} ${streams}: failed: ${e.message}`);
      }
    }
  }
}
writeFileSync(here('./results.json'), JSON.stringify({ machine: { cpu: cpus()[0]?.model, cores, node: process.version }, date: new Date().toISOString(), rows }, null, 2) + '\n');
