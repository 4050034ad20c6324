// Error classes of the practice: context too long (each engine's words), CUDA out of memory and a dead engine get codes of their own, over the wire.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { recordsOf } from '../src/report/results-dir.js';
import { startSimServer } from '../src/sim/server.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

/** Each engine's reply to a prompt over its context, as it sends it (status, body). */
const ENGINE_REPLIES: [string, number, string][] = [
  ['vllm', 400, JSON.stringify({ object: 'error', message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", type: 'BadRequestError', param: null, code: 400 })],
  ['openai', 400, JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } })],
  ['sglang', 400, JSON.stringify({ object: 'error', message: "The input (5000 tokens) is longer than the model's context length (4096 tokens).", type: 'BadRequestError', param: null, code: 400 })],
  ['tgi', 422, JSON.stringify({ error: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1000 `max_new_tokens`', error_type: 'validation' })],
  ['llama.cpp', 400, JSON.stringify({ error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } })],
];

let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const LOAD = ['--requests', '6', '--concurrency', '2', '--input-tokens', '32', '--output-tokens', '8', '--no-server-metrics'];

async function runAgainst(baseUrl: string, extra: string[] = []): Promise<{ code: number; out: string; dir: string; summary: Record<string, any> }> {
  const dir = join(tmpDir(), 'run');
  const c = capture();
  const code = await main(['run', '--no-validate', '--base-url', baseUrl, ...LOAD, ...extra, '--out', dir], c.io);
  return { code, out: c.out, dir, summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) };
}

describe('error classes', () => {
  for (const [engine, status, body] of ENGINE_REPLIES)
    it(`${engine}'s "context too long" reply (HTTP ${status}) is E_CONTEXT_TOO_LONG`, async () => {
      const srv: ScriptServer = await startScriptServer(() => ({ status, headers: { 'content-type': 'application/json' }, steps: [{ at: 0, write: body }] }));
      servers.push(srv);
      const r = await runAgainst(srv.baseUrl);
      expect(r.summary.requests.errors_by_code.map((e: { code: string; count: number }) => `${e.code}:${e.count}`)).toEqual(['E_CONTEXT_TOO_LONG:6']);
      const recs = [...recordsOf(join(r.dir, 'requests.jsonl'))];
      expect(recs.every((x) => x.status === 'http_error' && x.http_status === status && x.code === 'E_CONTEXT_TOO_LONG')).toBe(true);
    }, 30_000);

  it('an error status whose body names no cause keeps E_HTTP_<status>', async () => {
    const srv = await startScriptServer(() => ({ status: 400, headers: { 'content-type': 'application/json' }, steps: [{ at: 0, write: '{"error":"temperature must be positive"}' }] }));
    servers.push(srv);
    const r = await runAgainst(srv.baseUrl);
    expect(r.summary.requests.errors_by_code.map((e: { code: string }) => e.code)).toEqual(['E_HTTP_400']);
  }, 30_000);

  it('the sim server\'s oom fault is E_SERVER_OOM; fatal, the engine dies and every later request is E_ENGINE_DEAD', async () => {
    const sim = await startSimServer({ timeScale: 100, faults: { oom: { every: 3, fatal: true } } });
    servers.push(sim);
    const r = await runAgainst(sim.baseUrl, ['--concurrency', '1']);
    const recs = [...recordsOf(join(r.dir, 'requests.jsonl'))].sort((a, b) => a.id - b.id);
    // Requests 1 and 2 are served, the third runs the GPU out of memory, the engine is dead from then on.
    expect(recs.map((x) => x.code)).toEqual([null, null, 'E_SERVER_OOM', 'E_ENGINE_DEAD', 'E_ENGINE_DEAD', 'E_ENGINE_DEAD']);
    expect(recs[2].http_status).toBe(500);
    expect(recs[2].error).toContain('CUDA out of memory');
    expect(recs[3].http_status).toBe(503);
    expect(Object.fromEntries(r.summary.requests.errors_by_code.map((e: { code: string; count: number }) => [e.code, e.count]))).toEqual({ E_ENGINE_DEAD: 3, E_SERVER_OOM: 1 });
  }, 30_000);

  it('the embedded server takes the same fault from --sim-fault; a bad one is exit 2 naming the flag', async () => {
    const dir = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', ...LOAD, '--sim-time-scale', '100', '--sim-fault', 'oom,every=2', '--out', dir], c.io), c.err).toBe(0);
    const codes = [...recordsOf(join(dir, 'requests.jsonl'))].map((x) => x.code);
    expect(codes.filter((x) => x === 'E_SERVER_OOM')).toHaveLength(3);
    expect(codes.filter((x) => x === null)).toHaveLength(3);
    const bad = capture();
    expect(await main(['run', '--no-validate', ...LOAD, '--sim-fault', 'oom:lots', '--out', join(tmpDir(), 'x')], bad.io)).toBe(2);
    expect(bad.err).toContain('--sim-fault');
    const unknown = capture();
    expect(await main(['run', '--no-validate', ...LOAD, '--sim-fault', 'meltdown', '--out', join(tmpDir(), 'y')], unknown.io)).toBe(2);
    expect(unknown.err).toMatch(/--sim-fault.*unknown fault kind "meltdown".*oom/);
  }, 30_000);
});

describe('the error playbook', () => {
  it('each failure code of a real run comes with its hint: summary.json, the terminal and report.html', async () => {
    // Every 3rd request rate limited, every 4th stalls past --idle-timeout (the 12th is rate limited: the first fault checked).
    const sim = await startSimServer({ timeScale: 100, faults: { http429: { every: 3, retryAfterSeconds: 0 }, stall: { every: 4, afterTokens: 1, ms: 5000 } } });
    servers.push(sim);
    const dir = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', sim.baseUrl, '--requests', '12', '--concurrency', '4', '--input-tokens', '32', '--output-tokens', '8', '--idle-timeout', '1.5s', '--no-server-metrics', '--out', dir], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    const byCode = Object.fromEntries(s.requests.errors_by_code.map((e: { code: string; count: number; hint: string }) => [e.code, e]));
    expect(byCode.E_HTTP_429.count).toBe(4);
    expect(byCode.E_HTTP_429.hint).toMatch(/rate limit/);
    expect(byCode.E_STREAM_STALLED.count).toBe(2);
    expect(byCode.E_STREAM_STALLED.hint).toMatch(/queue|preempt/);
    expect(c.out).toContain('what to check:');
    expect(c.out).toMatch(/E_HTTP_429 \(4\): rate limited/);
    expect(c.out).toMatch(/E_STREAM_STALLED \(2\): the stream paused longer than --idle-timeout/);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('<h3>What to check</h3>');
    expect(html).toContain('rate limited');
  }, 30_000);

  it('names ulimit -n for EMFILE, the server queue or client limits for timeouts, and nothing for cancelled requests', async () => {
    const { errorHint } = await import('../src/metrics/error-hints.js');
    expect(errorHint('EMFILE', 'network_error')).toMatch(/ulimit -n/);
    expect(errorHint('E_TIMEOUT', 'timeout')).toMatch(/queue/);
    expect(errorHint('E_TIMEOUT', 'timeout')).toMatch(/--timeout/);
    expect(errorHint('E_HTTP_418', 'http_error')).toMatch(/client error/);
    expect(errorHint('E_HTTP_599', 'http_error')).toMatch(/server error/);
    expect(errorHint('ESOMETHING', 'network_error')).toMatch(/ulimit -n/);
    expect(errorHint('E_CANCELLED', 'cancelled')).toBeNull();
  });
});
