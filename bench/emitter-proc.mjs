// Start bench/emitter.mjs as a child process: its port, a stats() call (CPU, events) over IPC, and stop().
import { fork } from 'node:child_process';
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
