// The main-thread side of the prompt worker (prompt-worker.ts): requests built ahead in order, taken by index.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TraceRequest } from '../model.js';
import type { FromPromptWorker, PromptWorkerInit, ToPromptWorker } from './prompt-worker.js';

export interface BuiltAhead {
  r: TraceRequest;
  text: string;
  ceiling: number;
}

export interface PromptsAhead {
  /** Request `i` (an index not taken before, above every one taken): at once when built, else when the worker gets to it. */
  take(i: number): BuiltAhead | Promise<BuiltAhead>;
  close(): void;
}

/** The compiled worker; running from TypeScript sources (tests), the build in dist/. Undefined without a build. */
export function promptWorkerFile(): URL | undefined {
  const here = new URL('./prompt-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const dist = new URL('../../../../dist/dataset/trace/replay/prompt-worker.js', import.meta.url);
  return existsSync(fileURLToPath(dist)) ? dist : undefined;
}

/** Start the worker; it stops itself from holding the process open, and is ended by close() or `signal`. */
export function startPromptsAhead(file: URL, init: PromptWorkerInit, signal?: AbortSignal): PromptsAhead {
  const worker = new Worker(file, { workerData: init });
  worker.unref();
  const built = new Map<number, BuiltAhead>();
  const waiting = new Map<number, { resolve: (b: BuiltAhead) => void; reject: (e: Error) => void }>();
  let failure: Error | undefined;
  let closed = false;
  const fail = (e: Error): void => {
    failure ??= e;
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  };
  worker.on('message', (m: FromPromptWorker) => {
    if (m.type === 'failed') return fail(new Error(`trace replay: ${m.message}`));
    const w = waiting.get(m.i);
    const b = { r: m.r, text: m.text, ceiling: m.ceiling };
    if (w) {
      waiting.delete(m.i);
      w.resolve(b);
    } else built.set(m.i, b);
  });
  worker.on('error', (e) => fail(e));
  const close = (): void => {
    if (closed) return;
    closed = true;
    built.clear();
    void worker.terminate();
  };
  signal?.addEventListener('abort', close, { once: true });
  return {
    take(i) {
      if (failure) throw failure;
      // Requests below i were skipped (another shard's): drop what was built for them.
      for (const j of built.keys()) if (j < i) built.delete(j);
      worker.postMessage({ type: 'taken', upTo: i } satisfies ToPromptWorker);
      const b = built.get(i);
      if (b) {
        built.delete(i);
        return b;
      }
      return new Promise<BuiltAhead>((resolve, reject) => waiting.set(i, { resolve, reject }));
    },
    close,
  };
}
