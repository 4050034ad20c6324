// Native engine backends (ollama, llamacpp, tgi, triton) end to end: known timings on both transports, and the sim server.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { renderSummary } from '../src/report/terminal.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TRANSPORTS = ['h1', 'undici'] as const;
// Tolerances for a busy, shared 2-core machine (as in metrics-timing.test.ts).
const EARLY = 2;
// Wider than metrics-timing.test.ts: these ran at a load average of 17 on 2 cores; the exact checks below are load-free.
const LATE = 400;
const TPOT_TOL = 45;

async function one(backend: string, script: Script, transport: (typeof TRANSPORTS)[number], extra: Record<string, unknown> = {}) {
  server = await startScriptServer(() => script);
  const out = tmpDir();
  const res = await run({ validate: false, baseUrl: server.baseUrl, backend, requests: 1, concurrency: 1, inputTokens: 16, outputTokens: 5, out, quiet: true, transport, serverMetrics: false, ...extra });
  const line = JSON.parse(readFileSync(join(out, 'requests.jsonl'), 'utf8').trim()) as Record<string, unknown>;
  const urls = [...server.urls];
  await server.close();
  server = undefined;
  return { rec: res.records[0], res, line, urls };
}

const TIMES = [100, 150, 200, 250, 300];
const nd = (o: unknown) => `${JSON.stringify(o)}\n`;
const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;

/** The same five answer tokens at TIMES in each protocol, with its own last event. */
const SCRIPTS: Record<string, { script: Script; kinds: string; server: Record<string, number>; usage: boolean }> = {
  ollama: {
    script: {
      headers: { 'content-type': 'application/x-ndjson' },
      steps: [
        ...TIMES.map((at, i) => ({ at, write: nd({ model: 'm', message: { role: 'assistant', content: ` w${i}` }, done: false }) })),
        {
          at: 300,
          write: nd({ model: 'm', message: { role: 'assistant', content: '' }, done: true, done_reason: 'length', total_duration: 317_000_000, load_duration: 5_000_000, prompt_eval_count: 16, prompt_eval_duration: 12_345_678, eval_count: 5, eval_duration: 200_000_000 }),
        },
      ],
    },
    kinds: 'aaaaad',
    server: { server_prompt_tokens: 16, server_prompt_eval_ms: 12.345678, server_eval_tokens: 5, server_eval_ms: 200, server_load_ms: 5, server_total_ms: 317, server_prompt_per_s: 16 / (12.345678 / 1000), server_predicted_per_s: 25 },
    usage: true,
  },
  llamacpp: {
    script: {
      steps: [
        ...TIMES.map((at, i) => ({ at, write: sse({ content: ` w${i}`, stop: false, id_slot: 0 }) })),
        {
          at: 300,
          write: sse({ content: '', stop: true, tokens_predicted: 5, tokens_evaluated: 16, stop_type: 'limit', timings: { cache_n: 3, prompt_n: 13, prompt_ms: 12.5, prompt_per_second: 1040, predicted_n: 5, predicted_ms: 200.25, predicted_per_second: 24.968789 } }),
        },
      ],
    },
    kinds: 'aaaaau',
    server: { server_cached_tokens: 3, server_prompt_tokens: 13, server_prompt_eval_ms: 12.5, server_prompt_per_s: 1040, server_eval_tokens: 5, server_eval_ms: 200.25, server_predicted_per_s: 24.968789 },
    usage: true,
  },
  tgi: {
    script: {
      steps: TIMES.map((at, i) => ({
        at,
        write: `data:${JSON.stringify({ index: i + 1, token: { id: i, text: ` w${i}`, logprob: -1, special: false }, generated_text: i === 4 ? ' w0 w1 w2 w3 w4' : null, details: i === 4 ? { finish_reason: 'length', generated_tokens: 5, seed: null, input_length: 16 } : null })}\n\n`,
      })),
    },
    kinds: 'aaaaa',
    server: { server_prompt_tokens: 16, server_eval_tokens: 5 },
    usage: true,
  },
  triton: {
    script: { steps: TIMES.map((at, i) => ({ at, write: sse({ model_name: 'ensemble', model_version: '1', sequence_end: false, sequence_id: 0, sequence_start: false, text_output: ` w${i}` }) })) },
    kinds: 'aaaaa',
    server: {},
    usage: false,
  },
};

describe('native backends against a scripted server with known timings', () => {
  for (const [backend, s] of Object.entries(SCRIPTS)) {
    it(`${backend}: TTFT, TPOT, ITL, tokens and server_* fields as for OpenAI chat, alike on h1 and undici`, async () => {
      const seen: unknown[] = [];
      for (const transport of TRANSPORTS) {
        const { rec, line, urls, res } = await one(backend, s.script, transport);
        expect(rec.status, `${backend}/${transport}: ${rec.error}`).toBe('ok');
        expect(rec.event_kinds).toBe(s.kinds);
        expect(rec.ttft_ms!).toBeGreaterThanOrEqual(100 - EARLY);
        expect(rec.ttft_ms!).toBeLessThan(100 + LATE);
        expect(rec.ttfat_ms).toBe(rec.ttft_ms);
        // (300 − 100) / (5 − 1) = 50 when the server counts 5 tokens; Triton's text is counted by the tokenizer instead.
        if (s.usage) {
          expect(rec.tpot_ms!).toBeGreaterThan(50 - TPOT_TOL);
          expect(rec.tpot_ms!).toBeLessThan(50 + TPOT_TOL);
        }
        expect(rec.itl_ms).toHaveLength(4);
        // By definition, from the record's own arrival times (whatever the load): TTFT at the first answer event, TPOT over the five.
        const t = rec.event_times_ms;
        expect(rec.ttft_ms).toBeCloseTo(t[0], 6);
        expect(rec.tpot_ms!).toBeCloseTo((t[4] - t[0]) / (rec.output_tokens! - 1), 6);
        expect(rec.itl_ms.reduce((a, b) => a + b, 0)).toBeCloseTo(t[4] - t[0], 6);
        expect(rec.e2e_ms!).toBeGreaterThanOrEqual(300 - EARLY);
        expect(rec.answer_chars).toBe(' w0 w1 w2 w3 w4'.length);
        expect(rec.token_source).toBe(s.usage ? 'usage' : 'tokenizer');
        if (s.usage) expect([rec.input_tokens, rec.output_tokens]).toEqual([16, 5]);
        // The server's own figures are carried exactly, into the record and requests.jsonl; none are invented.
        const serverFields = Object.fromEntries(Object.entries(line).filter(([k]) => k.startsWith('server_')));
        expect(serverFields).toEqual(s.server);
        for (const [k, v] of Object.entries(s.server)) expect(rec[k as keyof typeof rec]).toBe(v);
        if (Object.keys(s.server).length) expect(Object.keys(res.summary.server_timings ?? {}).sort()).toEqual(Object.keys(s.server).sort());
        else expect(res.summary.server_timings).toBeUndefined();
        if (backend === 'triton') expect(urls).toEqual(['/v1/v2/models/scripted-model/generate_stream']);
        if (backend === 'ollama') expect(renderSummary(res.summary)).toMatch(/server-reported timings \(p50[^)]*\): prefill 12\.3\d* ms, decode 200(\.0*)? ms, load 5(\.0*)? ms, total 317(\.0*)? ms/);
        if (backend === 'triton') expect(renderSummary(res.summary)).not.toContain('server-reported');
        seen.push([rec.event_kinds, rec.output_tokens, rec.input_tokens, rec.finish_reason, serverFields]);
      }
      expect(seen[1]).toEqual(seen[0]);
    });
  }

  it('triton (no usage): the tokenizer counts the same text to the same output tokens as a usage-less OpenAI chat stream', async () => {
    const chat = await one('openai-chat', { steps: [...TIMES.map((at, i) => ({ at, write: chatChunk({ content: ` w${i}` }) })), { at: 300, write: DONE }] }, 'h1');
    const tri = await one('triton', SCRIPTS.triton.script, 'h1');
    expect(chat.rec.token_source).toBe('tokenizer');
    expect(tri.rec.output_tokens).toBe(chat.rec.output_tokens);
    expect(tri.rec.input_tokens).toBe(chat.rec.input_tokens);
  });

  it('ollama thinking: TTFT at the first thinking line, TTFAT at the first answer line, on both transports', async () => {
    const steps = [
      { at: 50, write: nd({ message: { role: 'assistant', content: '', thinking: 'think' }, done: false }) },
      { at: 80, write: nd({ message: { role: 'assistant', content: '', thinking: ' more' }, done: false }) },
      { at: 250, write: nd({ message: { role: 'assistant', content: 'answer' }, done: false }) },
      { at: 280, write: nd({ message: { role: 'assistant', content: ' done' }, done: false }) },
      { at: 280, write: nd({ message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: 16, eval_count: 4 }) },
    ];
    for (const transport of TRANSPORTS) {
      const { rec } = await one('ollama', { headers: { 'content-type': 'application/x-ndjson' }, steps }, transport);
      expect(rec.status).toBe('ok');
      expect(rec.event_kinds).toBe('RRaad');
      expect(rec.ttft_ms!).toBeGreaterThanOrEqual(50 - EARLY);
      expect(rec.ttft_ms!).toBeLessThan(50 + LATE);
      expect(rec.ttfat_ms!).toBeGreaterThanOrEqual(250 - EARLY);
      expect(rec.ttfat_ms!).toBeLessThan(250 + LATE);
      expect(rec.reasoning_chars).toBe('think more'.length);
      expect([rec.input_tokens, rec.output_tokens, rec.token_source]).toEqual([16, 4, 'usage']);
      expect(rec.server_eval_tokens).toBe(4);
      expect(rec.server_eval_ms).toBeUndefined(); // not sent: not invented
    }
  });

  it('ollama without counts: tokens counted with the tokenizer, no server_* fields in the record', async () => {
    const steps = [
      ...TIMES.map((at, i) => ({ at, write: nd({ message: { role: 'assistant', content: ` w${i}` }, done: false }) })),
      { at: 300, write: nd({ message: { role: 'assistant', content: '' }, done: true }) },
    ];
    for (const transport of TRANSPORTS) {
      const { rec, line, res } = await one('ollama', { headers: { 'content-type': 'application/x-ndjson' }, steps }, transport);
      expect(rec.status).toBe('ok');
      expect(rec.token_source).toBe('tokenizer');
      expect(rec.output_tokens).toBeGreaterThan(0);
      expect(Object.keys(line).filter((k) => k.startsWith('server_'))).toEqual([]);
      expect(res.summary.server_timings).toBeUndefined();
    }
  });

  it('ollama NDJSON written one byte per TCP write: the same lines, kinds and counts on both transports', async () => {
    const body = Buffer.from(
      nd({ message: { role: 'assistant', content: 'héllo 👋' }, done: false }) +
        nd({ message: { role: 'assistant', content: ' 日本' }, done: false }) +
        nd({ message: { role: 'assistant', content: '' }, done: true, prompt_eval_count: 16, eval_count: 2, eval_duration: 1_500_000 }),
    );
    const steps = [...body].map((b, i) => ({ at: Math.floor(i / 4), write: Buffer.from([b]) }));
    for (const transport of TRANSPORTS) {
      const { rec } = await one('ollama', { headers: { 'content-type': 'application/x-ndjson' }, steps }, transport);
      expect(rec.status, rec.error ?? '').toBe('ok');
      expect(rec.event_kinds).toBe('aad');
      expect(rec.answer_chars).toBe('héllo 👋 日本'.length);
      expect([rec.output_tokens, rec.server_eval_ms]).toEqual([2, 1.5]);
    }
  });

  it('an ollama error line mid-stream fails the request as a stream error event, alike on both transports', async () => {
    const steps = [
      { at: 10, write: nd({ message: { role: 'assistant', content: 'a' }, done: false }) },
      { at: 20, write: nd({ error: 'model runner has unexpectedly stopped' }) },
    ];
    for (const transport of TRANSPORTS) {
      const { rec } = await one('ollama', { headers: { 'content-type': 'application/x-ndjson' }, steps }, transport);
      expect([rec.status, rec.code]).toEqual(['http_error', 'E_STREAM_ERROR_EVENT']);
      expect(rec.error).toContain('model runner has unexpectedly stopped');
    }
  });
});
