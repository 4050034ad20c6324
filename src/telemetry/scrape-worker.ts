// The scrape worker thread: fetches, parses and normalizes /metrics pages off the measuring thread, answers with mapped samples.
import { parentPort, workerData } from 'node:worker_threads';
import { getClient } from '../backends/http-get.js';
import type { GetClientOptions } from '../backends/get-client.js';
import { scrapeOnce, type ScrapeRequest } from './scrape-once.js';

const client = getClient(workerData as GetClientOptions);
const stopAll = new AbortController();

parentPort!.on('message', (m: { id: number; req: ScrapeRequest } | { stop: true }) => {
  if ('stop' in m) {
    stopAll.abort();
    void client.close().finally(() => parentPort!.close());
    return;
  }
  void scrapeOnce(client, m.req, stopAll.signal).then((r) => parentPort!.postMessage({ id: m.id, r }));
});
// Loaded and listening: the measuring thread may start its run clock (server-source.ts prepare()).
parentPort!.postMessage({ ready: true });
