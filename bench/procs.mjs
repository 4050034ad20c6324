// Bench processes: the emitter as a child (port, stats() over IPC, stop()), client runs, and waiting for a quiet machine.
import { fork, spawn } from 'node:child_process';
import { sleep, machineTicks, machineBusyPct } from './stats.mjs';
import { fileURLToPath } from 'node:url';

export async function startEmitter(opts) {
  const em = fork(fileURLToPath(new URL('./emitter.mjs', import.meta.url)), [JSON.stringify(opts)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise((resolve, reject) => {
    em.on('message', (m) => m.type === 'ready' && resolve(m.port));
    em.on('exit', (code) => reject(new Error(`emitter exited with ${code}`)));
  });
  const stats = () =>
    new Promise((resolve) => {
      const on = (m) => m.type === 'stats' && (em.off('message', on), resolve(m));
      em.on('message', on);
      em.send({ type: 'stats' });
    });
  return { port, stats, stop: () => em.kill() };
}

/** Run a client script in a fresh process with the scenario as argv; resolves its last stdout line as JSON. */
export function runClient(script, sc) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--expose-gc', script, JSON.stringify(sc)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    const kill = setTimeout(() => c.kill(), 60_000);
    c.on('exit', (code) => {
      clearTimeout(kill);
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()));
      else reject(new Error(`client exited with ${code}: ${out.slice(0, 500)}`));
    });
  });
}

/** Wait (up to waitS seconds) until the whole machine is at most pct % busy; returns the last busy %. */
export async function waitForQuiet(pct, waitS) {
  let busy = 100;
  for (let i = 0; i < waitS; i++) {
    const a = machineTicks();
    await sleep(1000);
    busy = machineBusyPct(a, machineTicks()) ?? 0;
    if (busy <= pct) break;
  }
  return busy;
}
