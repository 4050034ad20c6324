// Metric definitions checked end to end: real runs against a scripted loopback server with known timings.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { readRecords } from '../src/metrics/jsonl.js';
import { join } from 'node:path';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function one(script: Script, extra: Record<string, unknown> = {}) {
  server = await startScriptServer(() => script);
  const out = tmpDir();
  const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 1, concurrency: 1, inputTokens: 16, outputTokens: 5, out, quiet: true, ...extra });
  return { rec: res.records[0], res, out };
}

// Tolerances for a busy, shared 2-core machine: Node timers fire up to ~1 ms early (EARLY) or tens of ms late
// (LATE); a TPOT is a difference of two such times, so it can be off by either in both directions (TPOT_TOL).
const EARLY = 2;
const LATE = 150;
const TPOT_TOL = 30;

describe('metric definitions against known timings', () => {
  it('TTFT skips the role-only first chunk; TPOT, ITL, E2E and first_event follow their formulas', async () => {
    const steps = [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      ...[100, 150, 200, 250, 300].map((at, i) => ({ at, write: chatChunk({ content: ` w${i}` }) })),
      { at: 300, write: usageChunk(16, 5) },
      { at: 300, write: DONE },
    ];
    const { rec } = await one({ steps });
    expect(rec.status).toBe('ok');
    expect(rec.first_event_ms!).toBeLessThan(rec.ttft_ms!);
    expect(rec.first_event_ms!).toBeLessThan(LATE);
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(100 - EARLY);
    expect(rec.ttft_ms!).toBeLessThan(100 + LATE);
    expect(rec.ttfat_ms).toBe(rec.ttft_ms);
    // (last - first) / (5 - 1) = (300 - 100) / 4 = 50
    expect(rec.tpot_ms!).toBeGreaterThan(50 - TPOT_TOL);
    expect(rec.tpot_ms!).toBeLessThan(50 + TPOT_TOL);
    expect(rec.itl_ms).toHaveLength(4);
    expect(rec.itl_ms.reduce((a, b) => a + b, 0)).toBeCloseTo(rec.event_times_ms[5] - rec.event_times_ms[1], 6);
    expect(rec.e2e_ms!).toBeGreaterThanOrEqual(300 - EARLY);
    expect(rec.output_speed_tok_s!).toBeCloseTo(1000 / rec.tpot_ms!, 6);
    expect(rec.output_tokens).toBe(5);
    expect(rec.input_tokens).toBe(16);
    expect(rec.token_source).toBe('usage');
    expect(rec.event_kinds).toBe('raaaaaud');
  });

  it('reasoning streams: TTFT at the first reasoning token, TTFAT at the first answer token (both field names)', async () => {
    const steps = [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      { at: 50, write: chatChunk({ reasoning_content: 'think' }) },
      { at: 80, write: chatChunk({ reasoning: ' more' }) },
      { at: 250, write: chatChunk({ content: 'answer' }) },
      { at: 280, write: chatChunk({ content: ' done' }) },
      { at: 280, write: usageChunk(16, 4, 2) },
      { at: 280, write: DONE },
    ];
    const { rec } = await one({ steps });
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(50 - EARLY);
    expect(rec.ttft_ms!).toBeLessThan(50 + LATE);
    expect(rec.ttfat_ms!).toBeGreaterThanOrEqual(250 - EARLY);
    expect(rec.ttfat_ms!).toBeLessThan(250 + LATE);
    expect(rec.reasoning_tokens).toBe(2);
    expect(rec.event_kinds).toBe('rRRaaud');
  });

  it('usage-less streams are counted with the tokenizer and say so', async () => {
    const steps = [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      { at: 20, write: chatChunk({ content: 'Hello' }) },
      { at: 40, write: chatChunk({ content: ' world' }) },
      { at: 60, write: DONE },
    ];
    const { rec } = await one({ steps });
    expect(rec.status).toBe('ok');
    expect(rec.token_source).toBe('tokenizer');
    expect(rec.output_tokens).toBe(2); // cl100k: "Hello" + " world"
    expect(rec.input_tokens).toBe(16);
  });

  it('heartbeat comments, event: lines and CRLF do not count as tokens or as the first event', async () => {
    const steps = [
      { at: 0, write: ': ping\r\n\r\n' },
      { at: 60, write: 'event: message\r\ndata: {"choices":[{"delta":{"content":"a"}}]}\r\n\r\n' },
      { at: 90, write: ': keep-alive\n\n' },
      { at: 120, write: 'data: {"choices":[{"delta":{"content":"b"}}]}\n\n' },
      { at: 120, write: usageChunk(16, 2) + DONE },
    ];
    const { rec } = await one({ steps });
    expect(rec.status).toBe('ok');
    expect(rec.first_event_ms!).toBeGreaterThanOrEqual(60 - EARLY);
    expect(rec.ttft_ms).toBe(rec.first_event_ms);
    expect(rec.chunks).toBe(4);
    expect(rec.tpot_ms!).toBeGreaterThan(60 - TPOT_TOL);
  });

  it('an event split across TCP writes (inside a UTF-8 character) is timed when it completes', async () => {
    const ev = Buffer.from(chatChunk({ content: '你好' }));
    const cut = ev.indexOf(Buffer.from('你')) + 1; // inside the 3-byte character
    const steps = [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      { at: 50, write: ev.subarray(0, cut) },
      { at: 150, write: ev.subarray(cut) },
      { at: 200, write: chatChunk({ content: '!' }) + usageChunk(16, 2) + DONE },
    ];
    const { rec, out } = await one({ steps });
    expect(rec.status).toBe('ok');
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(150 - EARLY);
    expect(rec.ttft_ms!).toBeLessThan(150 + LATE);
    expect(rec.answer_chars).toBe(3);
    // The raw record on disk gives back the same metrics.
    const back = readRecords(join(out, 'requests.jsonl')).records[0];
    expect(back.ttft_ms).toBe(rec.ttft_ms);
    expect(back.tpot_ms).toBe(rec.tpot_ms);
  });

  it('completions streams text in choices[].text', async () => {
    const text = (t: string) => `data: ${JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text: t }] })}\n\n`;
    const steps = [{ at: 30, write: text('a') }, { at: 60, write: text('b') }, { at: 60, write: usageChunk(16, 2) + DONE }];
    const { rec } = await one({ steps }, { endpoint: 'completions' });
    expect(rec.status).toBe('ok');
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(30 - EARLY);
    expect(server!.bodies[0]).toMatchObject({ prompt: expect.any(String), max_tokens: 5, stream: true, stream_options: { include_usage: true } });
  });

  it('non-streaming: TTFT equals E2E and the record says it was not streamed', async () => {
    const body = JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'hi there' }, finish_reason: 'stop' }], usage: { prompt_tokens: 16, completion_tokens: 2 } });
    const { rec } = await one({ headers: { 'content-type': 'application/json' }, steps: [{ at: 80, write: body }] }, { stream: false });
    expect(rec.status).toBe('ok');
    expect(rec.streamed).toBe(false);
    expect(rec.ttft_ms).toBe(rec.e2e_ms);
    expect(rec.tpot_ms).toBeNull();
    expect(rec.e2e_ms!).toBeGreaterThanOrEqual(80 - EARLY);
  });
});

describe('failures are records', () => {
  it('classifies HTTP errors, empty streams, malformed JSON, resets and timeouts', async () => {
    const scripts: Script[] = [
      { status: 500, headers: { 'content-type': 'application/json' }, steps: [{ at: 0, write: '{"error":{"message":"boom"}}' }] },
      { steps: [{ at: 0, write: DONE }] },
      { steps: [{ at: 0, write: 'data: {not json\n\n' }, { at: 1, write: chatChunk({ content: 'x' }) + DONE }] },
      { steps: [{ at: 0, write: chatChunk({ content: 'x' }) }, { at: 20, destroy: true }] },
      { steps: [{ at: 0, write: chatChunk({ content: 'x' }) }], hang: true },
      { steps: [{ at: 0, write: 'data: {"error":{"message":"overloaded","code":503}}\n\n' }] },
    ];
    server = await startScriptServer((_b, n) => scripts[n]);
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: scripts.length, concurrency: 1, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true, timeout: '1s' });
    const st = res.records.map((r) => r.status);
    expect(st).toEqual(['http_error', 'empty', 'parse_error', 'network_error', 'timeout', 'http_error']);
    expect(res.records[0].http_status).toBe(500);
    expect(res.records[0].error).toContain('boom');
    expect(res.records[5].error).toContain('overloaded');
    expect(res.summary.requests.failed).toBe(6);
    expect(res.summary.requests.error_rate).toBe(1);
    expect(res.summary.ttft_ms.count).toBe(0);
    expect(res.summary.requests.errors.find((e) => e.kind === 'http_error' && e.http_status === 500)?.count).toBe(1);
  });
});

describe('edge cases found in review', () => {
  it('"error": null on normal chunks is not an error', async () => {
    const chunk = (c: string) => `data: ${JSON.stringify({ choices: [{ delta: { content: c } }], error: null })}\n\n`;
    const { rec } = await one({ steps: [{ at: 0, write: chunk('a') }, { at: 20, write: chunk('b') + usageChunk(16, 2) + DONE }] });
    expect(rec.status).toBe('ok');
  });

  it('a whole stream in one read has no TPOT (no decode pace can be seen)', async () => {
    const all = chatChunk({ content: 'a' }) + chatChunk({ content: 'b' }) + chatChunk({ content: 'c' }) + usageChunk(16, 3) + DONE;
    const { rec } = await one({ steps: [{ at: 30, write: all }] });
    expect(rec.status).toBe('ok');
    expect(rec.tpot_ms).toBeNull();
    expect(rec.output_speed_tok_s).toBeNull();
  });

  it("a user's own Authorization header replaces the API key instead of being sent next to it", async () => {
    const { rec } = await one(
      { steps: [{ at: 0, write: chatChunk({ content: 'a' }) + usageChunk(16, 1) + DONE }] },
      { apiKey: 'sk-should-not-be-sent-0123456789', header: ['Authorization: Bearer gateway-token'] },
    );
    expect(rec.status).toBe('ok');
    const auth = server!.rawHeaders[0].filter((_, i, a) => i % 2 === 0 && a[i].toLowerCase() === 'authorization');
    expect(auth).toHaveLength(1);
    expect(server!.rawHeaders[0].join(' ')).not.toContain('sk-should-not-be-sent');
  });

  it('open loop stops at --duration even when --requests is larger', async () => {
    const steps = [{ at: 0, write: chatChunk({ content: 'a' }) + usageChunk(16, 1) + DONE }];
    server = await startScriptServer(() => ({ steps }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, rate: 20, arrival: 'constant', requests: 1000, duration: '1s', inputTokens: 8, outputTokens: 1, out: tmpDir(), quiet: true });
    expect(res.records.length).toBeGreaterThanOrEqual(19);
    expect(res.records.length).toBeLessThanOrEqual(21);
  });
});
