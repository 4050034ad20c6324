// Registries by kind, whole runs: run.json names the executor (closed, open, capped open, replay) and the backend, whose path and body are sent.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { simulate } from '../src/simulate.js';
import type { RunConfigInput } from '../src/config/schema.js';
import { tmpDir } from './helpers.js';

/** A loopback server that records `POST path` and body, and streams a chat delta or completions text as the path asks. */
let server: Server;
let baseUrl: string;
const seen: { path: string; body: Record<string, unknown> }[] = [];
const sockets = new Set<Socket>();
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: 'kind-model', object: 'model' }] }));
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      const choice = req.url?.endsWith('/chat/completions') ? { delta: { content: 'hi' } } : { text: 'hi' };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ choices: [choice] })}\n\ndata: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } })}\n\ndata: [DONE]\n\n`);
    });
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

const runJson = (out: string) => JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
const go = async (flags: RunConfigInput) => {
  const out = tmpDir();
  const res = await run({ validate: false, baseUrl, inputTokens: 8, outputTokens: 1, quiet: true, out, ...flags });
  return { res, meta: runJson(out) };
};

describe('run.json executor', () => {
  const trace = join(tmpDir(), 'trace.jsonl');
  writeFileSync(trace, [0, 20, 40].map((t) => JSON.stringify({ timestamp: t, prompt: 'p' })).join('\n'));
  const cases: [string, RunConfigInput, Record<string, unknown>][] = [
    ['closed loop', { concurrency: 2, requests: 4 }, { kind: 'constant-vus', vus: 2 }],
    ['default closed loop', { requests: 2 }, { kind: 'constant-vus', vus: 1 }],
    ['open loop', { rate: 200, requests: 4 }, { kind: 'constant-arrival-rate', rate: 200, arrival: 'poisson', max_vus: null }],
    ['capped open loop', { rate: 200, concurrency: 2, arrival: 'constant', requests: 4 }, { kind: 'constant-arrival-rate', rate: 200, arrival: 'constant', max_vus: 2 }],
    ['replay', { replay: trace, concurrency: 3 }, { kind: 'replay', max_vus: 3 }],
  ];
  for (const [name, flags, executor] of cases)
    it(name, async () => {
      const { res, meta } = await go(flags);
      expect(res.summary.requests.ok).toBe(res.records.length);
      expect(meta.executor).toEqual(executor);
      expect(res.summary.run.executor).toEqual(executor);
    });

  it('simulate records its executor the same way', async () => {
    const out = tmpDir();
    await simulate({ requests: 4, rate: 20, inputTokens: 16, outputTokens: 2, out });
    expect(runJson(out).executor).toEqual({ kind: 'constant-arrival-rate', rate: 20, arrival: 'poisson', max_vus: null });
    const out2 = tmpDir();
    await simulate({ requests: 4, concurrency: 3, inputTokens: 16, outputTokens: 2, out: out2 });
    expect(runJson(out2)).toMatchObject({ executor: { kind: 'constant-vus', vus: 3 }, backend: 'openai-chat' });
  });
});

describe('--backend', () => {
  for (const transport of ['h1', 'undici'] as const) {
    const cases: [RunConfigInput, string, string][] = [
      [{ backend: 'openai-completions' }, 'openai-completions', '/v1/completions'],
      [{ endpoint: 'completions' }, 'openai-completions', '/v1/completions'],
      [{ backend: 'openai-chat', endpoint: 'chat' }, 'openai-chat', '/v1/chat/completions'],
      [{}, 'openai-chat', '/v1/chat/completions'],
    ];
    for (const [flags, backend, path] of cases)
      it(`${transport}: ${JSON.stringify(flags)} loads ${path} and records ${backend}`, async () => {
        const before = seen.length;
        const { res, meta } = await go({ ...flags, transport, requests: 3 });
        const sent = seen.slice(before);
        expect(sent.map((s) => s.path)).toEqual([path, path, path]);
        const chat = backend === 'openai-chat';
        for (const s of sent) expect([typeof s.body.messages, typeof s.body.prompt]).toEqual(chat ? ['object', 'undefined'] : ['undefined', 'string']);
        expect(res.records.map((r) => [r.status, r.chunks])).toEqual([['ok', 3], ['ok', 3], ['ok', 3]]);
        expect(meta).toMatchObject({ backend, endpoint: chat ? 'chat' : 'completions', transport });
      });
  }

  it('worker threads read responses with the run\'s backend too (its kind crosses the thread boundary)', async () => {
    const before = seen.length;
    const { res, meta } = await go({ backend: 'openai-completions', workers: 2, concurrency: 2, requests: 4 });
    expect(seen.slice(before).map((s) => s.path)).toEqual(Array(4).fill('/v1/completions'));
    expect(res.records.map((r) => [r.status, r.answer_chars])).toEqual(Array(4).fill(['ok', 2]));
    expect(meta).toMatchObject({ backend: 'openai-completions', workers: 2 });
  });
});
