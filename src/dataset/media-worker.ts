// Media thread: generates and encodes synthetic images and audio so encoding never runs on the measuring thread.
import { parentPort } from 'node:worker_threads';
import { loadMediaEncoders, renderMedia, type MediaJob } from './synth-media.js';
import type { MediaPart } from './types.js';

export type ToMedia = { id: number; jobs: MediaJob[] };
export type FromMedia = { type: 'done'; id: number; parts: MediaPart[] } | { type: 'failed'; id: number; error: string };

const port = parentPort;
// Messages wait on the port until the listener below is attached.
if (port) await loadMediaEncoders();
if (port) {
  port.on('message', (m: ToMedia) => {
    try {
      const parts = m.jobs.map(renderMedia);
      port.postMessage({ type: 'done', id: m.id, parts } satisfies FromMedia, parts.map((p) => p.data?.buffer as ArrayBuffer).filter((b, i, a) => b && a.indexOf(b) === i));
    } catch (e) {
      port.postMessage({ type: 'failed', id: m.id, error: (e as Error).message } satisfies FromMedia);
    }
  });
}
