// Worker-thread request sender: spreads requests over N threads (least busy first) and merges results on the main thread.
import { entryFile } from '../package-root.js';
import { customBackendSpec } from './custom.js';
import { Worker } from 'node:worker_threads';
import { firstTokenBuffer, type RequestSender, type PoolOptions, type WireInput } from './sender.js';
import type { BackendKind } from './registry.js';
import { blankRaw, type ExecuteResult } from './execute.js';
import type { FromWorker, ToWorker } from './worker.js';

/** The compiled worker file. When running from TypeScript sources (tests), use the build in dist/. */
function workerFile(): URL {
  const f = entryFile(import.meta.url, './worker.js', 'backends/worker.js');
  if (f) return f;
  throw new Error('--workers needs the compiled worker (dist/backends/worker.js): run `npm run build`');
}

interface Slot {
  worker: Worker;
  inFlight: number;
  /** The thread crashed: it gets no more work, and close() does not wait for it. */
  dead: boolean;
}

export async function senderPool(n: number, pool: PoolOptions, originAbsMs: number, backend: BackendKind): Promise<RequestSender> {
  const file = workerFile();
  const per: PoolOptions = { ...pool, connections: pool.connections === null ? null : Math.ceil(pool.connections / n) };
  const pending = new Map<number, { resolve: (r: ExecuteResult) => void; input: WireInput; worker: Worker }>();
  let origin = originAbsMs;
  const now = () => performance.timeOrigin + performance.now() - origin;
  let seq = 0;
  const slots: Slot[] = [];
  const events = new Int32Array(new SharedArrayBuffer(4));
  const firsts = firstTokenBuffer();
  for (let i = 0; i < n; i++) {
    const worker = new Worker(file, { workerData: { pool: per, originAbsMs, events, backend, custom: customBackendSpec() } });
    const slot: Slot = { worker, inFlight: 0, dead: false };
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'first') firsts.push(m.ms);
      if (m.type !== 'done') return;
      slot.inFlight--;
      const p = pending.get(m.seq);
      pending.delete(m.seq);
      p?.resolve(m.result);
    });
    worker.on('error', (e) => {
      slot.dead = true;
      // A crashed worker must not hang the run: fail what it held.
      for (const [k, p] of pending) {
        if (p.worker !== worker) continue;
        const raw = blankRaw(p.input, now());
        raw.status = 'network_error';
        raw.code = 'E_WORKER';
        raw.error = `worker thread failed: ${e.message}`;
        raw.end_ms = 0;
        p.resolve({ raw, retryAfterMs: null, reasoningText: '', answerText: '', usage: null });
        pending.delete(k);
      }
    });
    slots.push(slot);
  }
  // 'online' fires before the worker's module has installed its message handler; wait for its own 'ready'.
  await Promise.all(slots.map((s) => new Promise<void>((r) => s.worker.on('message', (m: FromWorker) => m.type === 'ready' && r()))));
  const post = (s: Slot, m: ToWorker) => s.worker.postMessage(m);
  return {
    workers: n,
    execute(input: WireInput): Promise<ExecuteResult> {
      let best: Slot | undefined;
      for (const s of slots) if (!s.dead && (!best || s.inFlight < best.inFlight)) best = s;
      if (!best) {
        const raw = blankRaw(input, now());
        raw.status = 'network_error';
        raw.code = 'E_WORKER';
        raw.error = 'every worker thread has failed';
        raw.end_ms = 0;
        return Promise.resolve({ raw, retryAfterMs: null, reasoningText: '', answerText: '', usage: null });
      }
      best.inFlight++;
      const id = seq++;
      return new Promise((resolve) => {
        pending.set(id, { resolve, input, worker: best!.worker });
        post(best!, { type: 'exec', seq: id, input });
      });
    },
    setOrigin(abs: number) {
      origin = abs;
      slots.forEach((s) => post(s, { type: 'origin', originAbsMs: abs }));
    },
    // Int32 wraps after 2^31 events; `>>> 0` keeps the count right to 2^32, far beyond any run.
    contentEvents: () => Atomics.load(events, 0) >>> 0,
    firstTokens: firsts.drain,
    cancelAll: () => slots.forEach((s) => post(s, { type: 'cancel' })),
    async prewarm(count, opts) {
      // Each thread has its own pool: it opens its share, and the connects in flight stay bounded in total.
      const t0 = performance.now();
      const live = slots.filter((s) => !s.dead);
      if (count <= 0 || live.length === 0) return { opened: 0, failed: 0, ms: 0 };
      const per = Math.ceil(count / live.length);
      const maxConnecting = Math.max(1, Math.floor(opts.maxConnecting / live.length));
      const results = await Promise.all(
        live.map(
          (s, i) =>
            new Promise<{ opened: number; failed: number }>((r) => {
              const share = Math.max(0, Math.min(per, count - i * per));
              if (share === 0) return r({ opened: 0, failed: 0 });
              const onMsg = (m: FromWorker) => {
                if (m.type !== 'prewarmed') return;
                s.worker.off('message', onMsg);
                r(m.result);
              };
              s.worker.on('message', onMsg);
              s.worker.once('exit', () => r({ opened: 0, failed: share }));
              post(s, { type: 'prewarm', count: share, opts: { ...opts, maxConnecting, signal: undefined } }); // a signal cannot cross to a thread
            }),
        ),
      );
      return { opened: results.reduce((a, x) => a + x.opened, 0), failed: results.reduce((a, x) => a + x.failed, 0), ms: performance.now() - t0 };
    },
    async close() {
      await Promise.all(
        slots
          .filter((s) => !s.dead)
          .map(
            (s) =>
              new Promise<void>((r) => {
                // Late 'done' messages may still arrive: wait for 'closed' specifically (or the thread's exit).
                s.worker.on('message', (m: FromWorker) => m.type === 'closed' && r());
                s.worker.once('exit', () => r());
                post(s, { type: 'close' });
              }),
          ),
      );
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
