// Counting a pathological answer (no usage, 64k of one repeated character) never freezes the measurement of other streams.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** When the healthy stream sends its first token, ms after its request arrived. */
const HEALTHY_FIRST_TOKEN_MS = 800;
/** When the hostile answer starts: late enough that both requests are in flight by then. */
const HOSTILE_AT_MS = 400;

// 64,000 × 好 in 16 chunks and no usage: BPE on it took 16 s on the main thread. `extra` makes each use a new
// text: the tokenizer caches what it has counted, and a second identical count is fast.
const hostile = (extra: number): Script => ({
  steps: [
    ...Array.from({ length: 16 }, (_, i) => ({ at: HOSTILE_AT_MS + i, write: chatChunk({ content: '好'.repeat(i === 0 ? 4000 + extra : 4000) }) })),
    { at: HOSTILE_AT_MS + 20, write: DONE },
  ],
});
const healthy: Script = {
  steps: [
    { at: HEALTHY_FIRST_TOKEN_MS, write: chatChunk({ content: 'fine' }) },
    { at: HEALTHY_FIRST_TOKEN_MS + 50, write: chatChunk({ content: ' thanks' }) + usageChunk(8, 2) + DONE },
  ],
};

/** Run a hostile and a healthy request side by side; returns both records and the run's wall time. */
async function pair(transport: 'h1' | 'undici', hostileScript: Script) {
  // Two users send at once: the first request to arrive gets the hostile answer, the second the healthy one.
  server = await startScriptServer((_body, n) => (n === 0 ? hostileScript : healthy));
  const t0 = performance.now();
  const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 2, concurrency: 2, inputTokens: 8, outputTokens: 8, out: tmpDir(), quiet: true, transport });
  const wallMs = performance.now() - t0;
  const long = res.records.find((r) => r.token_source !== 'usage');
  const ok = res.records.find((r) => r.token_source === 'usage');
  expect(long, JSON.stringify(res.records)).toBeDefined();
  expect(ok, JSON.stringify(res.records)).toBeDefined();
  if (!long || !ok) throw new Error('unreachable');
  // The healthy request was on the wire before the hostile answer arrived (else a freeze could not show in its TTFT).
  expect(ok.sent_at_ms).toBeLessThan(long.sent_at_ms + HOSTILE_AT_MS);
  expect(long.status).toBe('ok');
  expect(ok.status).toBe('ok');
  // Before: the count blocked the loop for 16 s or more and this TTFT read as much. A loaded machine adds tens of ms, not seconds.
  expect(ok.ttft_ms).toBeGreaterThanOrEqual(HEALTHY_FIRST_TOKEN_MS - 5);
  expect(ok.ttft_ms).toBeLessThan(HEALTHY_FIRST_TOKEN_MS + 1500);
  // The count is bounded in time (2 s, then the estimate): the run does not wait out a long count.
  expect(wallMs).toBeLessThan(12_000);
  return { long, ok };
}

describe.each(['h1', 'undici'] as const)('token counting off the measuring thread (transport %s)', (transport) => {
  it('a 64k-好 answer without usage does not inflate a concurrent stream; it is counted or estimated', async () => {
    const { long } = await pair(transport, hostile(transport === 'h1' ? 0 : 1));
    expect(['estimate', 'tokenizer']).toContain(long.token_source);
    expect(long.output_tokens).toBeGreaterThan(1000);
  }, 120_000);

  it('an answer of 200k chars in one piece is counted exactly, within the 2 s bound (BPE merges long pieces in O(n log n))', async () => {
    // Not a run of one character, so it is not counted in pieces: the quadratic merge took far longer than the 2 s bound.
    const text = (transport === 'h1' ? 'ab' : 'ac').repeat(100_000);
    const script: Script = {
      steps: [
        ...Array.from({ length: 20 }, (_, i) => ({ at: HOSTILE_AT_MS + i, write: chatChunk({ content: text.slice(i * 10_000, (i + 1) * 10_000) }) })),
        { at: HOSTILE_AT_MS + 25, write: DONE },
      ],
    };
    const { long } = await pair(transport, script);
    expect(long.token_source).toBe('tokenizer');
    expect(long.output_tokens).toBe(loadTokenizer('cl100k_base').count(text));
  }, 120_000);
});
