// Worker thread of an open-loop trace replay: reads the trace again and builds each request's token-exact prompt and
// ceiling share ahead of its send time (at most `ahead` requests past the last one taken), off the thread that sends.
import { parentPort, workerData } from 'node:worker_threads';
import type { Tokenizer } from '../../tokenizer.js';
import { openTrace } from '../registry.js';
import { createPromptSynth, type BlockAlphabet } from '../prompts.js';
import { createCeilingCounter } from '../ceiling.js';
import type { TraceRequest } from '../model.js';
import { keepRequest } from './limits.js';

export interface PromptWorkerInit {
  path: string;
  kind: string;
  blockSize: number;
  skipBadLines: boolean;
  seed: number;
  /** Prompt seed id per pass. */
  traceIds: string[];
  /** Kept requests per pass, and in all. */
  perPass: number;
  total: number;
  maxTokens?: number;
  maxModelLen?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  alphabet: BlockAlphabet;
  tokenizer: string;
  ahead: number;
}
export type ToPromptWorker = { type: 'taken'; upTo: number };
export type FromPromptWorker = { type: 'item'; i: number; r: TraceRequest; text: string; ceiling: number } | { type: 'failed'; message: string };

async function produce(o: PromptWorkerInit, port: NonNullable<typeof parentPort>): Promise<void> {
  let taken = -1;
  let wake: (() => void) | undefined;
  port.on('message', (m: ToPromptWorker) => {
    taken = Math.max(taken, m.upTo);
    const w = wake;
    wake = undefined;
    w?.();
  });
  // The prompts need only the alphabet; a tokenizer is never called here.
  const tok = { name: o.tokenizer } as Tokenizer;
  const keep = (r: TraceRequest): boolean => keepRequest(r, o);
  let i = 0;
  for (let pass = 0; i < o.total; pass++) {
    const synth = createPromptSynth({ tok, blockSize: o.blockSize, seed: o.seed, traceId: o.traceIds[pass], alphabet: o.alphabet });
    const ceiling = createCeilingCounter(o.blockSize);
    let k = 0;
    for (const r of openTrace(o.path, o.kind, { blockSize: o.blockSize, skipBadLines: o.skipBadLines }).requests) {
      if (k >= o.perPass || i >= o.total) break;
      if (!keep(r)) continue;
      while (i - taken > o.ahead) await new Promise<void>((res) => (wake = res));
      if (i <= taken) {
        // Already taken (built by the sending thread when this one was late): only its ceiling share counts.
        ceiling(r);
        i++;
        k++;
        if (i % 64 === 0) await new Promise<void>((res) => setImmediate(res)); // hear the latest 'taken'
        continue;
      }
      const text = synth.text({ index: r.index, inputLength: r.inputLength, hashIds: r.hashIds });
      port.postMessage({ type: 'item', i, r, text, ceiling: ceiling(r) } satisfies FromPromptWorker);
      i++;
      k++;
      await new Promise<void>((res) => setImmediate(res)); // hear 'taken' between prompts
    }
    if (k < o.perPass && i < o.total) throw new Error(`${o.path} ended after ${k} requests on its second read (it had ${o.perPass}); was it changed during the run?`);
  }
}

if (parentPort) {
  const port = parentPort;
  produce(workerData as PromptWorkerInit, port).catch((e: unknown) => port.postMessage({ type: 'failed', message: (e as Error).message ?? String(e) } satisfies FromPromptWorker));
}
