// Token-counting thread: counts received text with the run's tokenizer so a slow count never blocks measuring.
import { parentPort, workerData } from 'node:worker_threads';
import { loadTokenizer } from './tokenizer.js';
import { countSplittingRuns } from './split-count.js';

export type ToCounter = { id: number; texts: string[] };
export type FromCounter = { type: 'ready' } | { type: 'done'; id: number; counts: number[] } | { type: 'failed'; id: number; error: string };

const port = parentPort;
if (port) {
  const tok = loadTokenizer((workerData as { tokenizer: string }).tokenizer);
  port.on('message', (m: ToCounter) => {
    try {
      port.postMessage({ type: 'done', id: m.id, counts: m.texts.map((t) => (t ? countSplittingRuns(tok, t) : 0)) } satisfies FromCounter);
    } catch (e) {
      port.postMessage({ type: 'failed', id: m.id, error: (e as Error).message } satisfies FromCounter);
    }
  });
  port.postMessage({ type: 'ready' } satisfies FromCounter);
}
