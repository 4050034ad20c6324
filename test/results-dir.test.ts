// Whole runs on loopback: the summary fed record by record equals `report`'s replay, and every reader sorts by id, then attempt.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { rebuildSummary } from '../src/cli/report.js';
import { readRunDir } from '../src/report/html/run-report.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

const json = { 'content-type': 'application/json' };
const ok = (): Script => ({ steps: [{ at: 0, write: chatChunk({ content: 'fine' }) + chatChunk({ content: ' and' }) + usageChunk(8, 2) + DONE }] });
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(['h1', 'undici'] as const)('results directory of a run (transport %s)', (transport) => {
  it('a retried request is written after later ones; records, the HTML reader and the summary agree on id-then-attempt order', async () => {
    // The first request is refused once (retried after 0.2 s) while the other slot carries on.
    const scripts: Script[] = [{ status: 429, headers: { ...json, 'retry-after': '0.2' }, steps: [{ at: 0, write: '{"error":"slow"}' }] }];
    server = await startScriptServer((_b, n) => scripts[n] ?? ok());
    const out = tmpDir();
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 6, concurrency: 2, inputTokens: 8, outputTokens: 2, out, quiet: true, retry: 1, warmup: 0, transport });
    const fileOrder = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: number; attempt: number });
    const key = (r: { id: number; attempt: number }) => `${r.id}.${r.attempt}`;
    const sorted = [...fileOrder].sort((a, b) => a.id - b.id || a.attempt - b.attempt).map(key);
    expect(fileOrder.map(key)).not.toEqual(sorted); // the retry really landed out of order
    expect(res.records.map(key)).toEqual(sorted);
    expect(readRunDir(out).records.map(key)).toEqual(sorted);
    expect(res.summary.requests.total).toBe(7);
    expect(res.summary.requests.retries).toBe(1);
    expect(res.summary.requests.failed).toBe(1);
    expect(res.summary.requests.errors).toEqual([{ kind: 'http_error', http_status: 429, count: 1, example: 'HTTP 429: {"error":"slow"}' }]);
    const onDisk = readFileSync(join(out, 'summary.json'), 'utf8');
    expect(JSON.stringify(rebuildSummary(out).summary, null, 2) + '\n').toBe(onDisk);
  });
});
