// What the quick start (`run` on the embedded simulator) prints: the simulator named as such, advice that applies to it,
// first event only when it says something TTFT does not, and a live TTFT as soon as the first token arrives.
import { describe, it, expect, afterEach } from 'vitest';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { startSimServer } from '../src/sim/server.js';
import type { LiveAggregator, LiveSnapshot } from '../src/metrics/live.js';
import { progressLine } from '../src/report/progress.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(['h1', 'undici'] as const)('the embedded simulator in the summary (transport %s)', (transport) => {
  it('is named as the tokenflood simulator, and the prefill-bound finding names --sim-* flags, not a real engine setting', async () => {
    // Long prompts one at a time: prefill dominates TTFT, so the prefill-bound finding fires.
    const r = await cli(['run', '--requests', '8', '--concurrency', '1', '--input-tokens', '4096', '--output-tokens', '4', '--transport', transport, '--out', tmpDir()]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^server \(tokenflood sim \(vLLM-like engine model\), \d+ samples\)/m);
    expect(r.out).not.toMatch(/^server \(vllm/m);
    // The sampled waiting gauge beside its time-average from the queue histogram (Little's law).
    expect(r.out).toMatch(/^server .*waiting [\d.]+ \(max [\d.]+; [\d.]+ from the queue time\)/m);
    const finding = r.out.split('\n').find((l) => l.startsWith('- prefill-bound'));
    expect(finding, r.out).toBeDefined();
    expect(finding).toContain('--sim-gpu');
    expect(finding).not.toMatch(/try chunked prefill|max_num_batched_tokens/);
  }, 60_000);

  it('a standalone tokenflood serve (not embedded) is named as the simulator too, with its own flags in the advice', async () => {
    const sim = await startSimServer({});
    try {
      const r = await cli(['run', '--base-url', sim.baseUrl, '--requests', '8', '--concurrency', '1', '--input-tokens', '4096', '--output-tokens', '4', '--transport', transport, '--out', tmpDir()]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^server \(tokenflood sim \(vLLM-like engine model\), \d+ samples\)/m);
      const finding = r.out.split('\n').find((l) => l.startsWith('- prefill-bound'));
      expect(finding, r.out).toBeDefined();
      expect(finding).toContain('serve --gpu');
      expect(finding).not.toMatch(/try chunked prefill|max_num_batched_tokens/);
    } finally {
      await sim.close();
    }
  }, 60_000);

  it('hides first event when it is within 1 ms of TTFT (the role chunk just ahead of the first token) and says so, else states its meaning', async () => {
    const r = await cli(['run', '--requests', '12', '--concurrency', '4', '--input-tokens', '64', '--output-tokens', '8', '--transport', transport, '--out', tmpDir()]);
    expect(r.code, r.err).toBe(0);
    // On a loaded machine the role chunk can arrive more than 1 ms early: then the row is shown, with its meaning.
    if (/^first event \(ms\)/m.test(r.out)) expect(r.out).toContain('(first event: the first SSE event of any kind');
    else expect(r.out).toMatch(/first event( equals TTFT|, the first SSE event of any kind, is within 1 ms of TTFT) in this run/);
  }, 60_000);
});

describe.each(['h1', 'undici'] as const)('first event that differs from TTFT (transport %s)', (transport) => {
  it('is shown with its meaning stated', async () => {
    // An empty role chunk 60 ms before the first token: vLLM's client would take 60 ms off TTFT.
    server = await startScriptServer(() => ({
      steps: [
        { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
        { at: 60, write: chatChunk({ content: ' a' }) },
        { at: 70, write: chatChunk({ content: ' b' }) + usageChunk(8, 2) + DONE },
      ],
    }));
    const r = await cli(['run', '--base-url', server.baseUrl, '--requests', '3', '--concurrency', '1', '--input-tokens', '8', '--output-tokens', '2', '--transport', transport, '--out', tmpDir()]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^first event \(ms\)/m);
    expect(r.out).toContain("(first event: the first SSE event of any kind, such as an empty role chunk, which vLLM's benchmark client takes as TTFT; TTFT here waits for the first token)");
  }, 30_000);
});

describe.each([
  ['h1', 1],
  ['undici', 1],
  ['h1', 2], // worker threads: first tokens cross the thread boundary
] as const)('live TTFT (transport %s, %i worker(s))', (transport, workers) => {
  it('shows a value once the first token arrived, before any request has ended', async () => {
    // First token at ~50 ms, then nothing until 1.5 s: the old aggregator had no TTFT for the whole 1.5 s.
    server = await startScriptServer(() => ({
      steps: [
        { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
        { at: 50, write: chatChunk({ content: ' first' }) },
        { at: 1500, write: chatChunk({ content: ' last' }) + usageChunk(8, 2) + DONE },
      ],
    }));
    const seen: LiveSnapshot[] = [];
    let timer: NodeJS.Timeout | undefined;
    let agg: LiveAggregator | undefined;
    const res = await run(
      { baseUrl: server.baseUrl, requests: 2, concurrency: 2, inputTokens: 8, outputTokens: 2, out: tmpDir(), quiet: true, transport, workers },
      {
        hooks: {
          onAggregator: (a) => {
            agg = a;
            timer = setInterval(() => seen.push(a.snapshot()), 100);
          },
        },
      },
    ).finally(() => clearInterval(timer));
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok']);
    const early = seen.filter((s) => s.done === 0 && s.ttftP50Ms !== null);
    expect(early.length, JSON.stringify(seen.map((s) => [s.done, s.ttftP50Ms]))).toBeGreaterThan(0);
    // The live value is the request's TTFT (~50 ms plus loopback and a loaded machine), not its end (~1.5 s).
    expect(early[0].ttftP50Ms!).toBeGreaterThan(30);
    expect(early[0].ttftP50Ms!).toBeLessThan(1200);
    // Each request counted once: two TTFTs in the window after both ended, the same as the records'.
    const s = agg!.snapshot();
    expect(s.done).toBe(2);
    expect(s.ttftP50Ms).not.toBeNull();
  }, 30_000);
});

describe('the live line before any first token', () => {
  const snap = (o: Partial<LiveSnapshot>): LiveSnapshot => ({ elapsedS: 1, done: 0, ok: 0, failed: 0, inFlight: 4, ttftP50Ms: null, ttftP90Ms: null, ttftP99Ms: null, outputTokens: 0, outputTokS: 0, requestsPerS: 0, ...o });
  it('says it is waiting for the first token instead of showing "-"', () => {
    expect(progressLine(snap({}), 10)).toContain('TTFT p50 waiting for first token');
    expect(progressLine(snap({ ttftP50Ms: 42 }), 10)).toContain('TTFT p50 42.00 ms');
    expect(progressLine(snap({ inFlight: 0 }), 10)).toContain('TTFT p50 -');
  });
});
