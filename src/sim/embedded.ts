// The embedded sim server for `run` and `sweep` without --base-url: started in a child process, closed with the run.
import { entryFile } from '../package-root.js';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TokenfloodError, UsageError } from '../errors.js';
import type { SimServerOptions } from './options.js';
import type { FromSimChild, ToSimChild } from './child.js';

export interface EmbeddedServer {
  baseUrl: string;
  /**
   * `process`: a child process, so the client's event-loop delay, CPU and send lag describe the client alone;
   * `in-process` only when running from TypeScript sources without a build (tests), where no child entry exists.
   */
  isolation: 'process' | 'in-process';
  close(): Promise<void>;
}

/** The compiled child entry; when running from TypeScript sources (tests), the build in dist/. */
function childFile(): string | undefined {
  const f = entryFile(import.meta.url, './child.js', 'sim/child.js');
  return f && fileURLToPath(f);
}

export async function startEmbeddedSimServer(opts: SimServerOptions): Promise<EmbeddedServer> {
  const file = childFile();
  if (!file) {
    const { startSim } = await import('./replicas.js');
    const sim = await startSim(opts);
    return { baseUrl: sim.baseUrl, isolation: 'in-process', close: () => sim.close() };
  }
  // stdout ignored: `--json` output is the client's alone. execArgv cleared: the entry is plain compiled JS.
  const child = fork(file, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], serialization: 'advanced' });
  const send = (m: ToSimChild) => child.send(m);
  const ready = await new Promise<FromSimChild>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new TokenfloodError('E_INTERNAL', `the embedded simulated server exited before it was ready (code ${code})`)));
    child.on('message', (m: FromSimChild) => (m.type === 'ready' || m.type === 'error') && resolve(m));
    send({ type: 'start', opts });
  }).catch((e: unknown) => {
    child.kill();
    throw e;
  });
  child.removeAllListeners('exit');
  child.removeAllListeners('error');
  if (ready.type === 'error') {
    await closeChild(child, send);
    throw ready.usage ? new UsageError(ready.problems) : new TokenfloodError('E_INTERNAL', `embedded simulated server: ${ready.message}`);
  }
  if (ready.type !== 'ready') throw new TokenfloodError('E_INTERNAL', 'embedded simulated server: unexpected message');
  return { baseUrl: ready.baseUrl, isolation: 'process', close: () => closeChild(child, send) };
}

/** Ask the child to close its server and exit; kill it if it has not within 5 s. */
function closeChild(child: ChildProcess, send: (m: ToSimChild) => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 5000);
    // 'close', not 'exit': by then the IPC pipe and the process handle are released too.
    child.once('close', () => {
      clearTimeout(t);
      resolve();
    });
    try {
      send({ type: 'close' });
    } catch {
      child.kill('SIGKILL');
    }
    if (!child.connected) child.kill('SIGKILL');
  });
}
