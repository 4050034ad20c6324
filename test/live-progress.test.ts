// The live line against a real loopback stream: output tokens show up while the request is still in flight.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import type { LiveAggregator } from '../src/metrics/live.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each([
  ['h1', 1],
  ['undici', 1],
  ['h1', 2], // worker threads: the count crosses threads through shared memory
] as const)('live token counter (transport %s, %i worker(s))', (transport, workers) => {
  // The server streams 10 tokens whatever max_tokens asks: the ladder (8 tokens) would refuse it; this test measures the live counter.
  it('counts content events as they arrive, and ends at the exact token total', async () => {
    // 10 tokens, 80 ms apart, then usage and [DONE].
    const steps = [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      ...Array.from({ length: 10 }, (_, i) => ({ at: 80 * (i + 1), write: chatChunk({ content: ` t${i}` }) })),
      { at: 850, write: usageChunk(8, 10) + DONE },
    ];
    server = await startScriptServer(() => ({ steps }));
    let agg: LiveAggregator | undefined;
    const seen: { done: number; tokS: number }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const res = await run(
      { baseUrl: server.baseUrl, requests: 1, concurrency: 1, inputTokens: 8, outputTokens: 10, out: tmpDir(), quiet: true, transport, workers, validate: false },
      {
        hooks: {
          onAggregator: (a) => {
            agg = a;
            timer = setInterval(() => {
              const s = a.snapshot();
              seen.push({ done: s.done, tokS: s.outputTokS });
            }, 100);
          },
        },
      },
    ).finally(() => clearInterval(timer));
    expect(res.records[0].status).toBe('ok');
    // Before the fix the rate stayed 0 until the request completed.
    const midStream = seen.filter((s) => s.done === 0 && s.tokS > 0);
    expect(midStream.length, JSON.stringify(seen)).toBeGreaterThan(0);
    // After it finished, the count is the request's 10 tokens (events counted, then corrected to usage).
    const last = agg!.snapshot();
    expect(last.done).toBe(1);
    expect(last.outputTokens).toBe(10);
  });
});
