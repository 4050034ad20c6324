// Synthetic media off the measuring thread: one worker thread renders requests' media ahead of their sends.
import { entryFile } from '../package-root.js';
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { renderMedia, type MediaJob } from './synth-media.js';
import type { MediaPart } from './types.js';
import type { FromMedia, ToMedia } from './media-worker.js';
import { createMediaPlan, type MediaParams } from './media-plan.js';

export interface MediaPool {
  /** Render one request's media; on the worker thread when there is one, else (tests from sources) in this thread. */
  render(jobs: MediaJob[]): Promise<MediaPart[]>;
  /** Whether rendering runs on worker threads, and how many. */
  readonly threaded: boolean;
  readonly threads: number;
  /** Keep the process alive for `p` (a request waits for it); renders ahead alone never hold the process open. */
  hold<T>(p: Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function workerFile(): URL | undefined {
  return entryFile(import.meta.url, './media-worker.js', 'dataset/media-worker.js');
}

/** Media threads when --media-threads is not given: one per core beyond the measuring thread's, 1 to 4. */
export const defaultMediaThreads = (): number => Math.max(1, Math.min(4, availableParallelism() - 1));

/** `threads` worker threads, requests dealt round-robin. */
export function createMediaPool(threads = defaultMediaThreads()): MediaPool {
  const shards = Array.from({ length: Math.max(1, threads) }, () => createOne());
  let turn = 0;
  return {
    threaded: shards[0].threaded,
    threads: shards.length,
    render: (jobs) => shards[turn++ % shards.length].render(jobs),
    hold: (p) => {
      for (const s of shards) s.hold(p);
      return p;
    },
    close: async () => {
      await Promise.all(shards.map((s) => s.close()));
    },
  };
}

function createOne(): MediaPool {
  const file = workerFile();
  const pending = new Map<number, { resolve(p: MediaPart[]): void; reject(e: Error): void; jobs: MediaJob[] }>();
  let worker: Worker | undefined;
  let seq = 0;
  let closed = false;
  let held = 0;
  const refresh = () => (held > 0 && pending.size ? worker?.ref() : worker?.unref());
  const start = (): Worker => {
    const w = new Worker(file as URL);
    w.on('message', (m: FromMedia) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.type === 'done') p.resolve(m.parts.map((x) => ({ ...x, data: x.data && new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength) })));
      else p.reject(new Error(m.error));
      refresh();
    });
    const failed = (e?: Error) => {
      if (w !== worker) return;
      worker = undefined;
      // A thread that died: its requests are rendered here instead, so no request is lost.
      for (const [id, p] of pending) {
        pending.delete(id);
        try {
          p.resolve(p.jobs.map(renderMedia));
        } catch (err) {
          p.reject(e ?? (err as Error));
        }
      }
    };
    w.unref();
    w.on('error', failed);
    w.on('exit', () => failed());
    return w;
  };
  return {
    threaded: file !== undefined,
    threads: 1,
    hold(p) {
      held++;
      refresh();
      const done = () => {
        held--;
        refresh();
      };
      p.then(done, done);
      return p;
    },
    render(jobs) {
      if (!file || closed) {
        try {
          return Promise.resolve(jobs.map(renderMedia));
        } catch (e) {
          return Promise.reject(e as Error);
        }
      }
      worker ??= start();
      const id = seq++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, jobs });
        refresh();
        (worker as Worker).postMessage({ id, jobs } satisfies ToMedia);
      });
    },
    async close() {
      closed = true;
      const w = worker;
      worker = undefined;
      await w?.terminate().catch(() => {});
    },
  };
}

/**
 * The media threads a run starts (0 without synthetic media): the client-health check judges the process's CPU
 * against its request threads plus these, as their encoding is CPU the measuring thread does not spend.
 */
export function mediaThreadsOf(p: Partial<MediaParams>): number {
  try {
    return createMediaPlan(p) ? (p.mediaThreads ?? defaultMediaThreads()) : 0;
  } catch {
    return 0;
  }
}
