// Worker thread body: executes requests sent by the main thread with its own HTTP pool and the run's clock.
import { parentPort, workerData } from 'node:worker_threads';
import { executeRequest } from './execute.js';
import { agentFor, inFlightSet, type PoolOptions, type WireInput } from './sender.js';
import { getBackend, type BackendKind } from './registry.js';
import { configureCustomBackend, type CustomBackendSpec } from './custom.js';
import { prewarmAgent, type PrewarmOptions, type PrewarmResult } from './prewarm.js';

interface Init {
  pool: PoolOptions;
  /** The run's clock origin as an absolute time (performance.timeOrigin + performance.now() of the main thread). */
  originAbsMs: number;
  /** One Int32 shared by all threads: content events received (Atomics.add per event, read by the main thread). */
  events: Int32Array;
  /** The run's backend: how responses are read (functions cannot cross threads, so its kind does). */
  backend: BackendKind;
  /** The --backend-config spec of a custom backend, checked on the main thread. */
  custom?: CustomBackendSpec | null;
}

export type ToWorker =
  | { type: 'exec'; seq: number; input: WireInput }
  | { type: 'prewarm'; count: number; opts: PrewarmOptions } | { type: 'origin'; originAbsMs: number } | { type: 'cancel' } | { type: 'close' };
export type FromWorker = { type: 'ready' } | { type: 'first'; ms: number } | { type: 'done'; seq: number; result: Awaited<ReturnType<typeof executeRequest>> } | { type: 'closed' } | { type: 'prewarmed'; result: PrewarmResult };

const init = workerData as Init;
const agent = await agentFor(init.pool);
configureCustomBackend(init.custom ?? null);
const classifier = getBackend(init.backend);
// Same clock as the main thread: both count from the same absolute origin.
let shift = performance.timeOrigin - init.originAbsMs;
const now = () => performance.now() + shift;
const live = inFlightSet();
const onContent = (first: number | null) => {
  Atomics.add(init.events, 0, 1);
  // One small message per request, like its 'done': the main thread's live TTFT sees the first token when it arrives.
  if (first !== null) parentPort!.postMessage({ type: 'first', ms: first } satisfies FromWorker);
};

parentPort!.on('message', (m: ToWorker) => {
  if (m.type === 'exec') {
    executeRequest({ ...m.input, dispatcher: agent, now, register: live.register, onContent, classifier }).then((result) =>
      parentPort!.postMessage({ type: 'done', seq: m.seq, result } satisfies FromWorker),
    );
  } else if (m.type === 'prewarm') {
    void prewarmAgent(agent, init.pool.origin, m.count, m.opts).then((result) => parentPort!.postMessage({ type: 'prewarmed', result } satisfies FromWorker));
  } else if (m.type === 'origin') {
    shift = performance.timeOrigin - m.originAbsMs;
  } else if (m.type === 'cancel') {
    live.abortAll();
  } else if (m.type === 'close') {
    agent.close().finally(() => parentPort!.postMessage({ type: 'closed' } satisfies FromWorker));
  }
});

// The handler is in place: the main thread may start the run clock and send work.
parentPort!.postMessage({ type: 'ready' } satisfies FromWorker);
