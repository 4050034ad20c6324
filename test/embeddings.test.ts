// Embeddings and rerank end to end: request shapes, samples/s and input tokens/s, latency only, against scripted and embedded servers.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import { renderSummary } from '../src/report/terminal.js';
import { rebuildSummary } from '../src/cli/report.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: ScriptServer | undefined;
let sim: SimServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  await sim?.close();
  server = sim = undefined;
});

const EARLY = 2;
const LATE = 150;
const json = (o: unknown) => JSON.stringify(o);

// What each scripted server answers for a batch of 3, and what it must have been sent.
const SHAPES = {
  embeddings: {
    path: '/embeddings',
    reply: json({ object: 'list', data: [0, 1, 2].map((index) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })), usage: { prompt_tokens: 48, total_tokens: 48 } }),
    body: { model: 'scripted-model', encoding_format: 'float' },
    inputs: 'input',
    usage: true,
  },
  'embeddings-tei': { path: '/embed', reply: json([[0.1], [0.2], [0.3]]), body: {}, inputs: 'inputs', usage: false },
  rerank: {
    path: '/rerank',
    reply: json({ results: [2, 0, 1].map((index) => ({ index, relevance_score: 0.5 })), usage: { total_tokens: 48 } }),
    body: { model: 'scripted-model', query: expect.any(String), return_documents: false },
    inputs: 'documents',
    usage: true,
  },
  'rerank-tei': { path: '/rerank', reply: json([2, 0, 1].map((index) => ({ index, score: 0.5 }))), body: { query: expect.any(String) }, inputs: 'texts', usage: false },
} as const;

describe('embeddings and rerank against a scripted loopback server with a known latency', () => {
  for (const transport of ['h1', 'undici'] as const)
    for (const [kind, shape] of Object.entries(SHAPES))
      it(`${kind} (${transport}): one body of --batch-size inputs, latency = E2E, no TTFT, samples counted`, async () => {
        server = await startScriptServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ at: 80, write: shape.reply }] }));
        const out = tmpDir();
        const res = await run({ baseUrl: server.baseUrl, backend: kind as keyof typeof SHAPES, transport, batchSize: 3, requests: 2, concurrency: 1, inputTokens: 16, out, quiet: true });
        const body = server.bodies[0] as Record<string, unknown>;
        expect(body).toMatchObject(shape.body);
        const inputs = body[shape.inputs] as string[];
        expect(inputs).toHaveLength(3);
        expect(new Set(inputs).size).toBe(1);
        for (const rec of res.records) {
          expect(rec.status, rec.error ?? '').toBe('ok');
          expect(rec).toMatchObject({ samples: 3, streamed: false, ttft_ms: null, ttfat_ms: null, first_event_ms: null, tpot_ms: null, itl_ms: [], output_tokens: 0 });
          expect(rec.e2e_ms!).toBeGreaterThanOrEqual(80 - EARLY);
          expect(rec.e2e_ms!).toBeLessThan(80 + LATE);
          expect(rec.expected_input_tokens).toBe(3 * 16);
          expect(rec.input_tokens).toBe(48);
          expect(rec.token_source).toBe(shape.usage ? 'usage' : 'tokenizer');
        }
        const s = res.summary;
        // sample_throughput = Σ samples / duration_s; input_throughput = Σ input_tokens / duration_s
        expect(s.samples).toBe(6);
        expect(s.sample_throughput).toBeCloseTo(6 / s.duration_s, 9);
        expect(s.sample_throughput).toBeCloseTo(3 * s.request_throughput, 9);
        expect(s.input_throughput).toBeCloseTo(96 / s.duration_s, 9);
        expect(s.ttft_ms.count).toBe(0);
        expect(s.e2e_ms.count).toBe(2);
        const text = renderSummary(s);
        expect(text).toMatch(/samples\/s, input .* tok\/s/);
        expect(text).toMatch(/^latency \(ms\)/m);
        expect(text).not.toMatch(/TTFT|TPOT|output tokens/);
        // summary.json carries the same fields, and rebuilding from requests.jsonl gives them again.
        const disk = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
        expect(disk).toMatchObject({ samples: 6, sample_throughput: s.sample_throughput });
        expect(JSON.parse(JSON.stringify(rebuildSummary(out).summary))).toEqual(disk);
        expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('sample throughput');
      });

  it('a body of the wrong shape is a parse_error naming what was expected; an error object is an error', async () => {
    server = await startScriptServer((_b, n) => ({
      headers: { 'content-type': 'application/json' },
      steps: [{ at: 5, write: n === 0 ? json({ data: 'nope' }) : json({ error: { message: 'input too long' } }) }],
    }));
    const res = await run({ baseUrl: server.baseUrl, backend: 'embeddings', requests: 2, concurrency: 1, inputTokens: 8, out: tmpDir(), quiet: true });
    const [a, b] = [...res.records].sort((x, y) => x.id - y.id);
    expect(a).toMatchObject({ status: 'parse_error', code: 'E_JSON_PARSE' });
    expect(a.error).toMatch(/expected an OpenAI embeddings response/);
    expect(b).toMatchObject({ status: 'http_error', code: 'E_STREAM_ERROR_EVENT' });
  });

  it.each(['h1', 'undici'] as const)('junk items are not samples: a parse_error naming the first bad item (%s)', async (transport) => {
    const junk: [string, string, RegExp][] = [
      ['embeddings', json({ data: [null, 5, 'x'] }), /data\[0\] is null, not an embedding/],
      ['embeddings', json({ data: Array.from({ length: 1000 }, () => ({})) }), /data\[0\] is an object without the expected fields/],
      ['embeddings', json({ data: [{ embedding: [0.1] }, { embedding: ['a'] }] }), /data\[1\]/],
      ['embeddings-tei', json([[0.1], 'x']), /response\[1\] is string "x", not a vector of numbers/],
      ['rerank', json({ results: [{ index: 0, relevance_score: 0.5 }, {}] }), /results\[1\] .*not a result/],
      ['rerank-tei', json([null]), /response\[0\] is null/],
    ];
    for (const [backend, reply, why] of junk) {
      server = await startScriptServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ at: 1, write: reply }] }));
      const res = await run({ baseUrl: server.baseUrl, backend: backend as 'embeddings', requests: 1, concurrency: 1, inputTokens: 8, out: tmpDir(), quiet: true, transport });
      const r = res.records[0];
      expect.soft(r, `${backend} ${reply.slice(0, 40)}`).toMatchObject({ status: 'parse_error', code: 'E_JSON_PARSE' });
      expect.soft(r.samples ?? 0).toBe(0);
      expect.soft(r.error ?? '', backend).toMatch(why);
      expect.soft(res.summary.samples ?? 0).toBe(0);
      await server.close();
      server = undefined;
    }
    // base64 embeddings (encoding_format: "base64") are real embeddings.
    server = await startScriptServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ at: 1, write: json({ data: [{ embedding: 'AAAAPw==' }] }) }] }));
    const ok = await run({ baseUrl: server.baseUrl, backend: 'embeddings', requests: 1, inputTokens: 8, out: tmpDir(), quiet: true, transport });
    expect(ok.records[0]).toMatchObject({ status: 'ok', samples: 1 });
  });

  it('an empty result list is empty, not ok', async () => {
    server = await startScriptServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ at: 5, write: '[]' }] }));
    const res = await run({ baseUrl: server.baseUrl, backend: 'embeddings-tei', requests: 1, out: tmpDir(), quiet: true });
    expect(res.records[0]).toMatchObject({ status: 'empty', code: 'E_EMPTY', error: 'HTTP 200 but the response carried no results' });
  });
});

describe('embeddings and rerank against the embedded server', () => {
  it('every shape answers with one result per input; input tokens come from usage where the API has it', async () => {
    sim = await startSimServer({ timeScale: 10 });
    for (const kind of ['embeddings', 'embeddings-tei', 'rerank', 'rerank-tei'] as const) {
      const res = await run({ baseUrl: sim.baseUrl, backend: kind, batchSize: 4, requests: 8, concurrency: 2, inputTokens: 32, out: tmpDir(), quiet: true });
      expect(res.records.every((r) => r.status === 'ok' && r.samples === 4), kind).toBe(true);
      expect(res.summary.samples, kind).toBe(32);
      expect(res.summary.sample_throughput, kind).toBeCloseTo(4 * res.summary.request_throughput, 9);
      if (kind === 'embeddings') expect(res.records.every((r) => r.token_source === 'usage' && r.input_tokens === 128)).toBe(true);
    }
  });
});

describe('--batch-size', () => {
  it('only applies to the embeddings and rerank backends (exit 2, nothing sent)', async () => {
    server = await startScriptServer(() => ({ steps: [] }));
    const c = capture();
    const code = await main(['run', '--base-url', server.baseUrl, '--batch-size', '4', '--quiet'], c.io);
    expect(code).toBe(2);
    expect(c.err).toMatch(/--batch-size: only applies with --backend embeddings, embeddings-tei, rerank, rerank-tei/);
    expect(server.bodies).toHaveLength(0);
  });
  it('simulate does not model embeddings or rerank (exit 2)', async () => {
    const c = capture();
    const code = await main(['simulate', '--backend', 'rerank', '--requests', '2', '--quiet'], c.io);
    expect(code).toBe(2);
    expect(c.err).toMatch(/--backend: simulate models text generation, not rerank/);
  });
  it('is a whole number of inputs', async () => {
    server = await startScriptServer(() => ({ steps: [] }));
    const c = capture();
    const code = await main(['run', '--base-url', server.baseUrl, '--backend', 'embeddings', '--batch-size', '0', '--quiet'], c.io);
    expect(code).toBe(2);
    expect(c.err).toMatch(/--batch-size: /);
    expect(server.bodies).toHaveLength(0);
  });
});
