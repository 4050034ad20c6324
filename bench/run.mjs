// Whole-client bench: tokenflood at rising load against bench/emitter.mjs; writes bench/results.json and prints a table.
//
// Every scenario gets a fresh emitter process and a fresh client process (bench/client.mjs), so CPU and memory
// figures belong to that scenario alone. Timing error = client time of an event − the server's stamp for it −
// the floor (median of the same difference at one stream). See docs/performance.md for the method.
// Options (env): BENCH_ONLY=name1,name2 runs a subset; BENCH_QUIET_PCT (default 25) is the other-load level
// the bench waits for (at most BENCH_QUIET_WAIT_S, default 20 s) before each scenario, because a shared machine skews every figure.
import { writeFileSync } from 'node:fs';
import { cpus, availableParallelism, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmitter, runClient as runClientScript, waitForQuiet as waitQuiet } from './procs.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { printTable } from './table.mjs';
import { judgeTargets, printTargets } from './targets.mjs';

const here = (f) => fileURLToPath(new URL(f, import.meta.url));
const QUIET_PCT = Number(process.env.BENCH_QUIET_PCT ?? 25);
const QUIET_WAIT_S = Number(process.env.BENCH_QUIET_WAIT_S ?? 20);
const only = process.env.BENCH_ONLY?.split(',');
const runClient = (sc) => runClientScript(here('./client.mjs'), sc);
const waitForQuiet = () => waitQuiet(QUIET_PCT, QUIET_WAIT_S);


/** Wait (≤ QUIET_WAIT_S) until the machine is mostly idle: other people's builds distort every figure. */

async function runScenario(s) {
  const idleBefore = await waitForQuiet();
  const em = await startEmitter(s.emitter);
  const e0 = await em.stats();
  const clients = s.split ?? 1;
  const scs = Array.from({ length: clients }, () => ({ ...s.client, port: em.port, streams: s.client.streams && s.client.streams / clients }));
  const results = await Promise.all(scs.map(runClient));
  const e1 = await em.stats();
  em.stop();
  const emitterPctOneCore = ((e1.cpuMs - e0.cpuMs) / (e1.wallMs - e0.wallMs)) * 100;
  return { name: s.name, title: s.title, streams: s.client.streams, target: s.target, idleBeforePct: idleBefore, emitterPctOneCore, results };
}

const machine = { cpu: cpus()[0]?.model, cores: availableParallelism(), memGB: Math.round(totalmem() / 2 ** 30), node: process.version, platform: process.platform };
console.error(`tokenflood bench on ${machine.cpu}, ${machine.cores} cores, node ${machine.node}`);
const out = [];
for (const s of SCENARIOS) {
  if (only && !only.includes(s.name)) continue;
  process.stderr.write(`  ${s.name}: ${s.title} ... `);
  const t = performance.now();
  try {
    out.push(await runScenario(s));
    process.stderr.write(`${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  } catch (e) {
    process.stderr.write(`failed: ${e.message}\n`);
    out.push({ name: s.name, title: s.title, error: e.message });
  }
}
const report = { machine, date: new Date().toISOString(), scenarios: out };
const rows = printTable(report);
report.table = rows;
report.targets = judgeTargets(rows);
printTargets(report.targets);
writeFileSync(here('./results.json'), JSON.stringify(report, null, 2) + '\n');
