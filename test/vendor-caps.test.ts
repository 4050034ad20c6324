// A vendor API's separate input and output caps: the sim server refuses past them in OpenAI's shape, the workload (synthetic or a dataset) is checked before sending.
import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { recordsOf } from '../src/report/results-dir.js';
import { startSimServer } from '../src/sim/server.js';
import { startScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const post = (url: string, body: unknown) => fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('vendor input and output caps', () => {
  it('serve --max-input-tokens / --max-output-tokens: HTTP 400 in OpenAI\'s error shape past either cap, recorded with their codes', async () => {
    const sim = await startSimServer({ timeScale: 100, maxInputTokens: 100, maxOutputTokens: 50 });
    servers.push(sim);
    const long = await post(sim.baseUrl, { model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'word '.repeat(300) }], max_tokens: 10 });
    expect(long.status).toBe(400);
    const e = (await long.json()) as { error: { message: string; type: string; param: string; code: string } };
    expect(e.error).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' });
    expect(e.error.message).toMatch(/^This model's maximum input length is 100 tokens\. However, your messages resulted in \d+ tokens/);
    const many = await post(sim.baseUrl, { model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 80 });
    expect(many.status).toBe(400);
    expect(((await many.json()) as { error: unknown }).error).toEqual({
      message: 'max_tokens is too large: 80. This model supports at most 50 completion tokens, whereas you provided 80.', type: 'invalid_request_error', param: 'max_tokens', code: null,
    });
    const fine = await post(sim.baseUrl, { model: 'llama-3.1-8b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 });
    expect(fine.status).toBe(200);
    await fine.text();

    // A run that does not declare the caps meets them at the server: each failure named by its cause.
    const dir = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', sim.baseUrl, '--mix', 'long: 50% in 200 out 10; wordy: 50% in 20 out 80', '--requests', '8', '--concurrency', '2', '--no-server-metrics', '--out', dir], c.io), c.err).toBe(0);
    const recs = [...recordsOf(join(dir, 'requests.jsonl'))];
    expect(recs.filter((r) => r.class === 'long').every((r) => r.code === 'E_CONTEXT_TOO_LONG')).toBe(true);
    expect(recs.filter((r) => r.class === 'wordy').every((r) => r.code === 'E_MAX_TOKENS_TOO_LARGE')).toBe(true);
    expect(c.out).toMatch(/E_CONTEXT_TOO_LONG \(\d\): prompt \+ max_tokens exceed/);
  }, 30_000);

  it('run --max-input-tokens / --max-output-tokens: a workload that could pass them is exit 2 before anything is sent, every problem named', async () => {
    const srv = await startScriptServer(() => ({ steps: [] }));
    servers.push(srv);
    const c = capture();
    const args = ['run', '--no-validate', '--base-url', srv.baseUrl, '--requests', '4', '--max-input-tokens', '1000', '--max-output-tokens', '256', '--out', join(tmpDir(), 'x')];
    expect(await main([...args, '--input-tokens', 'lognormal:mean=500,sd=200', '--output-tokens', '300'], c.io)).toBe(2);
    expect(c.err).toContain('--max-input-tokens 1000: --input-tokens lognormal:mean=500,sd=200 can send prompts of any length (no max=), which the API would refuse; shorten the prompts or bound them with ,max=1000');
    expect(c.err).toContain('--max-output-tokens 256: --output-tokens 300 can ask for max_tokens up to 300, which the API would refuse; lower it or bound it with ,max=256');
    const mix = capture();
    expect(await main([...args, '--prefix-tokens', '100', '--mix', 'a: 50% in 800 out 64; b: 50% in uniform:100,950 out 64'], mix.io)).toBe(2);
    expect(mix.err).toContain('--mix class b (uniform:100,950) can send prompts of up to 1050 tokens (100 of them --prefix-tokens)');
    expect(mix.err).not.toContain('class a');
    expect(srv.bodies).toHaveLength(0);
    // Bounded to fit: it runs.
    const ok = capture();
    expect(await main(['run', '--no-validate', '--base-url', srv.baseUrl, '--requests', '1', '--max-input-tokens', '1000', '--max-output-tokens', '256', '--input-tokens', 'lognormal:mean=500,sd=200,max=1000', '--output-tokens', '256', '--timeout', '2s', '--no-server-metrics', '--out', join(tmpDir(), 'y')], ok.io), ok.err).toBe(0);
  }, 30_000);

  it('a dataset prompt over the run\'s cap is a bad record: skipped before sending and named by file and line', async () => {
    const dir = tmpDir();
    const data = join(dir, 'prompts.jsonl');
    writeFileSync(data, [JSON.stringify({ prompt: 'short question?' }), JSON.stringify({ prompt: 'a very long document '.repeat(100) })].join('\n'));
    const out = join(dir, 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', '--dataset', data, '--dataset-order', 'sequential', '--requests', '4', '--output-tokens', '8', '--max-input-tokens', '64', '--sim-time-scale', '100', '--no-server-metrics', '--out', out], c.io), c.err).toBe(0);
    const recs = [...recordsOf(join(out, 'requests.jsonl'))].sort((a, b) => a.id - b.id);
    // Only the short prompt is sent (the embedded server, given the same cap, would refuse the long one).
    expect(recs.map((r) => r.code)).toEqual([null, null, null, null]);
    expect(recs.every((r) => (r.input_tokens ?? Infinity) <= 64)).toBe(true);
    expect(c.err).toMatch(/prompts\.jsonl:2: prompt of \d+ tokens is over --max-input-tokens 64/);
    // --strict refuses the file: exit 2, nothing sent.
    const strict = capture();
    expect(await main(['run', '--no-validate', '--dataset', data, '--strict', '--requests', '2', '--max-input-tokens', '64', '--sim-time-scale', '100', '--no-server-metrics', '--out', join(dir, 'strict')], strict.io)).toBe(2);
  }, 30_000);
});
