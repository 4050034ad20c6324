// Token counting off the measuring thread: one worker thread, bounded in input size and time, with a documented estimate as fallback.
import { entryFile } from '../package-root.js';
import { Worker } from 'node:worker_threads';
import { loadTokenizer } from './tokenizer.js';
import { estimateTokens } from './token-estimate.js';
import { countSplittingRuns } from './split-count.js';
import type { FromCounter, ToCounter } from './count-worker.js';

export interface TokenCount {
  counts: number[];
  /** `tokenizer`: counted exactly; `estimate`: too long or too slow to count, see estimateTokens. */
  source: 'tokenizer' | 'estimate';
}

export interface TokenCounter {
  /** Count each text; never rejects, never blocks the calling thread for long. */
  count(texts: readonly string[]): Promise<TokenCount>;
  close(): Promise<void>;
}

/**
 * BPE is quadratic on a long run of one repeated character (64k `好`: 16 s). Runs are counted in pieces
 * (countSplittingRuns), and for what remains slow (other long pieces without spaces) a count is bounded:
 * texts longer than maxChars in all are estimated at once, a count not done within timeoutMs is estimated
 * and its thread replaced. Without the compiled worker (tests from sources, no build) short texts are
 * counted in-thread and longer ones estimated.
 */
export const COUNT_LIMITS = { maxChars: 1_000_000, timeoutMs: 2000, inThreadMaxChars: 4096 } as const;

function workerFile(): URL | undefined {
  return entryFile(import.meta.url, './count-worker.js', 'dataset/count-worker.js');
}

const estimate = (texts: readonly string[]): TokenCount => ({ counts: texts.map(estimateTokens), source: 'estimate' });

interface Job {
  id: number;
  texts: readonly string[];
  queuedAt: number;
  resolve(r: TokenCount): void;
}

export function createTokenCounter(tokenizer: string, limits: Partial<Record<keyof typeof COUNT_LIMITS, number>> = {}): TokenCounter {
  const lim = { ...COUNT_LIMITS, ...limits };
  const file = workerFile();
  const queue: Job[] = [];
  let worker: Worker | undefined;
  let ready = false;
  let readyAt = 0;
  let current: { job: Job; timer: NodeJS.Timeout } | undefined;
  let seq = 0;
  let closed = false;

  const finish = (job: Job, r: TokenCount) => {
    if (current?.job === job) {
      clearTimeout(current.timer);
      current = undefined;
    }
    job.resolve(r);
  };
  const drop = () => {
    const w = worker;
    worker = undefined;
    ready = false;
    void w?.terminate().catch(() => {});
  };
  const pump = () => {
    // The thread keeps the process alive only while it holds work.
    if (worker && (current || queue.length)) worker.ref();
    else worker?.unref();
    if (closed || current || !queue.length) return;
    if (!worker) return start();
    if (!ready) return;
    const job = queue.shift() as Job;
    // A count that waited a whole time bound in the queue is estimated: no record waits more than about two bounds.
    if (performance.now() - Math.max(job.queuedAt, readyAt) > lim.timeoutMs) {
      job.resolve(estimate(job.texts));
      return pump();
    }
    const timer = setTimeout(() => {
      // Stuck inside BPE: the thread cannot be interrupted, so it is replaced.
      finish(job, estimate(job.texts));
      drop();
      pump();
    }, lim.timeoutMs);
    current = { job, timer };
    worker.postMessage({ id: job.id, texts: [...job.texts] } satisfies ToCounter);
  };
  const start = () => {
    const w = new Worker(file as URL, { workerData: { tokenizer } });
    worker = w;
    w.on('message', (m: FromCounter) => {
      if (w !== worker) return;
      if (m.type === 'ready') {
        ready = true;
        readyAt = performance.now();
      }
      else if (current && m.id === current.job.id) finish(current.job, m.type === 'done' ? { counts: m.counts, source: 'tokenizer' } : estimate(current.job.texts));
      pump();
    });
    const failed = () => {
      if (w !== worker) return;
      if (current) finish(current.job, estimate(current.job.texts));
      drop();
      pump();
    };
    w.on('error', failed);
    w.on('exit', failed);
  };

  return {
    count(texts) {
      const chars = texts.reduce((s, t) => s + t.length, 0);
      if (chars === 0) return Promise.resolve({ counts: texts.map(() => 0), source: 'tokenizer' });
      if (closed || chars > lim.maxChars) return Promise.resolve(estimate(texts));
      if (!file) {
        if (chars > lim.inThreadMaxChars) return Promise.resolve(estimate(texts));
        const tok = loadTokenizer(tokenizer);
        return Promise.resolve({ counts: texts.map((t) => (t ? countSplittingRuns(tok, t) : 0)), source: 'tokenizer' });
      }
      return new Promise((resolve) => {
        queue.push({ id: seq++, texts, queuedAt: performance.now(), resolve });
        pump();
      });
    },
    async close() {
      closed = true;
      if (current) finish(current.job, estimate(current.job.texts));
      for (const j of queue.splice(0)) j.resolve(estimate(j.texts));
      const w = worker;
      worker = undefined;
      await w?.terminate().catch(() => {});
    },
  };
}
