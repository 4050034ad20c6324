// The main-thread side of the prompt worker (prompt-worker.ts): requests built ahead in order, taken by index.
import { entryFile } from '../../../package-root.js';
import { Worker } from 'node:worker_threads';
import type { TraceRequest } from '../model.js';
import type { FromPromptWorker, PromptWorkerInit, ToPromptWorker } from './prompt-worker.js';

export interface BuiltAhead {
  r: TraceRequest;
  text: string;
  ceiling: number;
}

export interface PromptsAhead {
  /**
   * Request `i` (above every index taken before) if the worker has built it, else undefined: the caller builds it
   * itself, and the worker skips it. Never waits, so a late worker shows as the caller's build time, not as a stall.
   */
  take(i: number): BuiltAhead | undefined;
  close(): void;
}

/** The compiled worker; running from TypeScript sources (tests), the build in dist/. Undefined without a build. */
export function promptWorkerFile(): URL | undefined {
  return entryFile(import.meta.url, './prompt-worker.js', 'dataset/trace/replay/prompt-worker.js');
}

/** Start the worker; it stops itself from holding the process open, and is ended by close() or `signal`. */
export function startPromptsAhead(file: URL, init: PromptWorkerInit, signal?: AbortSignal): PromptsAhead {
  const worker = new Worker(file, { workerData: init });
  const built = new Map<number, BuiltAhead>();
  let failure: Error | undefined;
  let closed = false;
  let taken = -1;
  worker.on('message', (m: FromPromptWorker) => {
    if (m.type === 'failed') failure ??= new Error(`trace replay: ${m.message}`);
    else if (m.i > taken) built.set(m.i, { r: m.r, text: m.text, ceiling: m.ceiling });
  });
  worker.on('error', (e) => (failure ??= e));
  // After the listeners (a 'message' listener refs the worker again): the worker never keeps the process alive.
  worker.unref();
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
      taken = i;
      // Requests below i were skipped (another shard's) or built by the caller: drop what was built for them.
      for (const j of built.keys()) if (j < i) built.delete(j);
      worker.postMessage({ type: 'taken', upTo: i } satisfies ToPromptWorker);
      const b = built.get(i);
      built.delete(i);
      return b;
    },
    close,
  };
}
