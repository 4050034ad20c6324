// Open loop with an in-flight cap: requests held back show their wait in ttft_from_scheduled_ms, not in ttft_ms.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import { replaySummary } from '../src/report/results-dir.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('TTFT from the scheduled time', () => {
  it('equals ttft + schedule lag per record; a capped open loop shows coordinated omission there and not in TTFT', async () => {
    // Each answer's first token comes 100 ms after the request arrives; 20 req/s with one in flight cannot keep up.
    server = await startScriptServer(() => ({ steps: [{ at: 100, write: chatChunk({ content: 'x' }) }, { at: 100, write: usageChunk(8, 1) + DONE }] }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, rate: 20, arrival: 'constant', concurrency: 1, requests: 10, inputTokens: 8, outputTokens: 1, out: tmpDir(), quiet: true });
    for (const r of res.records) expect(r.ttft_from_scheduled_ms).toBeCloseTo((r.ttft_ms as number) + r.schedule_lag_ms, 2);
    const s = res.summary;
    // TTFT stays near 100 ms; from the schedule, the 10th request waited ~9 × (100 − 50) ms more.
    expect(s.ttft_ms.p50).toBeLessThan(400);
    expect(s.ttft_from_scheduled_ms.max).toBeGreaterThan(s.ttft_ms.max + 300);
    expect(JSON.parse(JSON.stringify(replaySummary(res.outDir).summary.ttft_from_scheduled_ms))).toEqual(JSON.parse(JSON.stringify(s.ttft_from_scheduled_ms)));
  });
});
