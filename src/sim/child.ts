// Child-process entry of the embedded sim server: the client's process then measures only the client.
import type { SimServerHandle } from './server.js';
import { startSim } from './replicas.js';
import type { SimServerOptions } from './options.js';

export type ToSimChild = { type: 'start'; opts: SimServerOptions } | { type: 'close' };
export type FromSimChild =
  | { type: 'ready'; baseUrl: string; pid: number }
  | { type: 'error'; usage: boolean; problems: string[]; message: string }
  | { type: 'closed' };

const send = (m: FromSimChild) => process.send?.(m);
let sim: SimServerHandle | undefined;

// Ctrl-C reaches the whole process group: the server must outlive the client's grace period, so the client alone
// decides when it closes. If the client dies, the IPC channel closes and so does this process.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('disconnect', () => process.exit(0));

process.on('message', (m: ToSimChild) => {
  if (m.type === 'start') {
    startSim(m.opts).then(
      (h) => {
        sim = h;
        send({ type: 'ready', baseUrl: h.baseUrl, pid: process.pid });
      },
      (e: unknown) => {
        const err = e as { problems?: string[]; message?: string };
        send({ type: 'error', usage: Array.isArray(err.problems), problems: err.problems ?? [], message: err.message ?? String(e) });
      },
    );
  } else if (m.type === 'close') {
    const done = () => {
      send({ type: 'closed' });
      process.disconnect?.();
      process.exit(0);
    };
    (sim ? sim.close() : Promise.resolve()).then(done, done);
  }
});
