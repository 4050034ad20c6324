// Sim server over real HTTP: vLLM shapes, errors, metrics, faults, lifecycle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../dataset/tokenizer.js';
import { startSimServer, type SimServerHandle } from './server.js';
import { resolveEngine } from './engine/config.js';
import { stepCost } from './engine/cost.js';
import { outsideEngineMs } from './engine/overheads.js';

const tok = loadTokenizer('cl100k_base');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();

async function post(base: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** SSE events of a whole response body: data payloads ("[DONE]" kept as a string) and comment lines. */
function events(text: string): { data: string[]; comments: string[] } {
  const data: string[] = [];
  const comments: string[] = [];
  for (const ev of text.split('\n\n')) {
    if (ev.startsWith('data: ')) data.push(ev.slice(6));
    else if (ev.startsWith(':')) comments.push(ev);
  }
  return { data, comments };
}

const chat = (extra: Record<string, unknown> = {}) => ({
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Explain the KV cache in one paragraph, please.' },
  ],
  max_tokens: 12,
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
});

describe('sim server', () => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    sim = await startSimServer({ timeScale: 50, maxModelLen: 4096 });
  });
  afterAll(() => sim.close());

  it('lists the served model and its -reasoning twin, with sim headers', async () => {
    const res = await fetch(`${sim.baseUrl}/models`);
    expect(res.headers.get('x-tokenflood-sim')).toBe('1');
    expect(res.headers.get('x-tokenflood-time-scale')).toBe('50');
    const body = await json(res);
    expect(body.object).toBe('list');
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(['llama-3.1-8b', 'llama-3.1-8b-reasoning']);
    expect(body.data[0]).toMatchObject({ object: 'model', owned_by: 'tokenflood-sim', max_model_len: 4096 });
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('streams chat like vLLM: role chunk, token chunks, finish, usage with choices [], [DONE]', async () => {
    const res = await post(sim.baseUrl, '/chat/completions', chat());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const { data } = events(await res.text());
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks[0].id).toMatch(/^chatcmpl-/);
    expect(chunks[0].choices).toEqual([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]);
    const tokens = chunks.slice(1, -1);
    expect(tokens).toHaveLength(12);
    expect(tokens.at(-1).choices[0].finish_reason).toBe('length');
    expect(tokens.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    const prompt = tok.count('You are terse.') + tok.count('Explain the KV cache in one paragraph, please.');
    expect(usage.usage).toEqual({
      prompt_tokens: prompt,
      total_tokens: prompt + 12,
      completion_tokens: 12,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    const text = tokens.map((c) => c.choices[0].delta.content).join('');
    expect(tok.count(text)).toBe(12); // output text re-tokenizes to the same count
  });

  it('reasoning model: reasoning_content first, then content; usage counts reasoning tokens', async () => {
    const res = await post(sim.baseUrl, '/chat/completions', chat({ model: 'llama-3.1-8b-reasoning', max_tokens: 10 }));
    const chunks = events(await res.text()).data.slice(0, -1).map((d) => JSON.parse(d));
    const deltas = chunks.slice(1, -1).map((c) => c.choices[0].delta);
    expect(deltas.slice(0, 5).every((d) => typeof d.reasoning_content === 'string' && d.content === undefined)).toBe(true);
    expect(deltas.slice(5).every((d) => typeof d.content === 'string')).toBe(true);
    expect(chunks.at(-1).usage.completion_tokens_details.reasoning_tokens).toBe(5);
    expect(chunks[0].model).toBe('llama-3.1-8b-reasoning');
  });

  it('ignore_eos gives exactly max_tokens; tokensPerChunk-independent count in usage', async () => {
    const res = await post(sim.baseUrl, '/chat/completions', chat({ max_tokens: 77, stream: false }));
    const body = await json(res);
    expect(body.object).toBe('chat.completion');
    expect(body.usage.completion_tokens).toBe(77);
    expect(body.choices[0].finish_reason).toBe('length');
    expect(tok.count(body.choices[0].message.content)).toBe(77);
    expect(body.choices[0].message.reasoning_content).toBeNull();
  });

  it('without ignore_eos stops at a natural length no longer than max_tokens, at least min_tokens', async () => {
    const lens: number[] = [];
    for (let i = 0; i < 6; i++) {
      const body = await json(await post(sim.baseUrl, '/completions', { prompt: `q${i}`, max_tokens: 150, min_tokens: 40 }));
      lens.push(body.usage.completion_tokens);
      expect(['stop', 'length']).toContain(body.choices[0].finish_reason);
    }
    expect(Math.max(...lens)).toBeLessThanOrEqual(150);
    expect(Math.min(...lens)).toBeGreaterThanOrEqual(40);
  });

  it('completions endpoint streams choices[].text and accepts token-id prompts', async () => {
    const res = await post(sim.baseUrl, '/completions', { prompt: [1, 2, 3, 4, 5], max_tokens: 4, ignore_eos: true, stream: true, stream_options: { include_usage: true } });
    const chunks = events(await res.text()).data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks[0].object).toBe('text_completion');
    expect(chunks.slice(0, 4).every((c) => typeof c.choices[0].text === 'string')).toBe(true);
    expect(chunks[3].choices[0].finish_reason).toBe('length');
    expect(chunks[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 4 } });
  });

  it('second identical long prompt reports cached tokens', async () => {
    const long = 'tokens and blocks '.repeat(400);
    const one = await json(await post(sim.baseUrl, '/chat/completions', chat({ messages: [{ role: 'user', content: long }], stream: false, max_tokens: 2 })));
    const two = await json(await post(sim.baseUrl, '/chat/completions', chat({ messages: [{ role: 'user', content: long }], stream: false, max_tokens: 2 })));
    expect(one.usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect(two.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(one.usage.prompt_tokens - 32);
  });

  it('400 errors in vLLM shape: overflow, bad JSON, missing fields; 404 unknown model', async () => {
    const over = await post(sim.baseUrl, '/chat/completions', chat({ max_tokens: 5000 }));
    expect(over.status).toBe(400);
    const body = await json(over);
    expect(body).toMatchObject({ object: 'error', type: 'BadRequestError', param: null, code: 400 });
    expect(body.message).toMatch(/^This model's maximum context length is 4096 tokens\. However, you requested \d+ tokens \(\d+ in the messages, 5000 in the completion\)\. Please reduce the length of the messages or completion\.$/);
    const bad = await fetch(`${sim.baseUrl}/chat/completions`, { method: 'POST', body: '{nope' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).object).toBe('error');
    const missing = await post(sim.baseUrl, '/chat/completions', { max_tokens: 3 });
    expect(missing.status).toBe(400);
    const unknown = await post(sim.baseUrl, '/chat/completions', chat({ model: 'gpt-9' }));
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toEqual({ object: 'error', message: 'The model `gpt-9` does not exist.', type: 'NotFoundError', param: null, code: 404 });
  });

  it('/metrics exposes vLLM v1 metric names with model_name', async () => {
    const text = await (await fetch(sim.baseUrl.replace(/\/v1$/, '/metrics'))).text();
    for (const name of [
      'vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc', 'vllm:prefix_cache_queries',
      'vllm:prefix_cache_hits', 'vllm:num_preemptions', 'vllm:prompt_tokens', 'vllm:generation_tokens', 'vllm:request_success',
      'vllm:time_to_first_token_seconds_bucket', 'vllm:inter_token_latency_seconds', 'vllm:request_queue_time_seconds',
      'vllm:request_prefill_time_seconds', 'vllm:request_decode_time_seconds', 'vllm:e2e_request_latency_seconds',
    ])
      expect(text).toContain(name);
    expect(text).toContain('model_name="llama-3.1-8b"');
    expect(text).toMatch(/vllm:generation_tokens_total\{[^}]*\} [1-9]\d*/);
  });

  it('a client that disconnects mid-stream is aborted in the engine', async () => {
    const ac = new AbortController();
    const r = await fetch(`${sim.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify(chat({ max_tokens: 3000 })), signal: ac.signal });
    const reader = r.body!.getReader();
    await reader.read();
    ac.abort();
    await new Promise((ok) => setTimeout(ok, 100));
    const text = await (await fetch(sim.baseUrl.replace(/\/v1$/, '/metrics'))).text();
    expect(text).toMatch(/vllm:num_requests_running\{[^}]*\} 0/);
    expect(text).toMatch(/vllm:kv_cache_usage_perc\{[^}]*\} 0\n/);
  });
});

describe('sim server faults', () => {
  const withFaults = async (faults: object, fn: (s: SimServerHandle) => Promise<void>, extra: object = {}) => {
    const s = await startSimServer({ timeScale: 50, faults, ...extra });
    try {
      await fn(s);
    } finally {
      await s.close();
    }
  };

  it('http429 with Retry-After, http500, http503', async () => {
    await withFaults({ http429: { rate: 1, retryAfterSeconds: 7 } }, async (s) => {
      const res = await post(s.baseUrl, '/chat/completions', chat());
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('7');
      expect((await json(res)).code).toBe(429);
    });
    await withFaults({ http500: { every: 2 }, http503: { every: 3 } }, async (s) => {
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await post(s.baseUrl, '/chat/completions', chat({ stream: false }))).status);
      expect(codes).toEqual([200, 500, 503]);
    });
  });

  it('stall pauses the stream after K tokens', async () => {
    await withFaults({ stall: { rate: 1, afterTokens: 3, ms: 300 } }, async (s) => {
      const res = await post(s.baseUrl, '/chat/completions', chat({ max_tokens: 6 }));
      const reader = res.body!.getReader();
      const times: number[] = [];
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value);
        const n = (buf.match(/"content":" /g) ?? []).length;
        while (times.length < n) times.push(performance.now());
      }
      expect(times).toHaveLength(6);
      // 300 ms stall; the slack covers a late read of token 3 on a loaded machine.
      expect(times[3] - times[2]).toBeGreaterThan(200);
    });
  });

  it('drop destroys the socket after K tokens and frees the engine', async () => {
    await withFaults({ drop: { rate: 1, afterTokens: 2 } }, async (s) => {
      const res = await post(s.baseUrl, '/chat/completions', chat({ max_tokens: 50 }));
      await expect(res.text()).rejects.toThrow();
      const text = await (await fetch(s.baseUrl.replace(/\/v1$/, '/metrics'))).text();
      expect(text).toMatch(/vllm:num_requests_running\{[^}]*\} 0/);
    });
  });

  it('malformed JSON chunk, heartbeats, big first chunk', async () => {
    await withFaults({ malformed: { rate: 1, afterTokens: 1 }, heartbeat: { rate: 1, intervalMs: 20 }, bigFirstChunk: { rate: 1, tokens: 8 } }, async (s) => {
      const res = await post(s.baseUrl, '/chat/completions', chat({ max_tokens: 40 }));
      const { data, comments } = events(await res.text());
      expect(comments.every((c) => c === ': ping')).toBe(true);
      expect(comments.length).toBeGreaterThan(0);
      const bad = data.filter((d) => { try { JSON.parse(d); return false; } catch { return d !== '[DONE]'; } });
      expect(bad).toHaveLength(1);
      const good = data.filter((d) => !bad.includes(d) && d !== '[DONE]').map((d) => JSON.parse(d));
      expect(tok.count(good[1].choices[0].delta.content)).toBe(8);
      expect(data.at(-1)).toBe('[DONE]');
    }, { timeScale: 5 });
  });

  it('never-ending stream: no finish, no [DONE]; close() still ends it', async () => {
    const s = await startSimServer({ timeScale: 50, faults: { neverEnding: { rate: 1 } } });
    const res = await post(s.baseUrl, '/chat/completions', chat({ max_tokens: 3 }));
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    const deadline = Date.now() + 400;
    while (Date.now() < deadline) {
      const r = await Promise.race([reader.read(), new Promise<undefined>((ok) => setTimeout(() => ok(undefined), 100))]);
      if (r && !r.done) buf += dec.decode(r.value);
      if (r?.done) break;
    }
    expect((buf.match(/"content":" /g) ?? []).length).toBe(3);
    expect(buf).not.toContain('[DONE]');
    expect(buf).not.toContain('"finish_reason":"length"');
    await s.close();
    await expect(reader.read()).rejects.toThrow();
  });
});

describe('sim server lifecycle', () => {
  it('close() leaves no open handles', async () => {
    const count = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'PipeWrap').length;
    await new Promise((ok) => setTimeout(ok, 50));
    const before = count();
    const s = await startSimServer({ timeScale: 50, faults: { heartbeat: { rate: 1, intervalMs: 5 } } });
    const pending = post(s.baseUrl, '/chat/completions', chat({ max_tokens: 3000 })).then((r) => r.text()).catch(() => 'closed');
    await new Promise((ok) => setTimeout(ok, 50));
    await s.close();
    expect(await pending).toBeTypeOf('string');
    await new Promise((ok) => setTimeout(ok, 50));
    expect(count()).toBeLessThanOrEqual(before);
  });
});

describe('sim server timing', () => {
  it('TTFT includes the time outside the engine (API server, tokenization, detokenization), scaled like engine time', async () => {
    // timeScale 0.05: 20x slower than real time, so late timers on a loaded machine are small next to the gap tested.
    const timeScale = 0.05;
    const sim = await startSimServer({ timeScale });
    try {
      const prompt = 'Explain the KV cache in one paragraph, please.';
      const promptTokens = tok.encode(prompt).length;
      const spec = resolveEngine({});
      const outside = outsideEngineMs(spec, promptTokens);
      const prefill = stepCost(spec, { requests: 1, newTokens: promptTokens, contextTokens: 0, attentionPairs: (promptTokens * (promptTokens + 1)) / 2 }).totalMs;
      const t0 = performance.now();
      const res = await post(sim.baseUrl, '/completions', { prompt, max_tokens: 2, ignore_eos: true, stream: true });
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('"text"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const ttftWallMs = performance.now() - t0;
      await reader.cancel();
      expect(outside).toBeGreaterThan(5);
      // Timers only fire late, so the engine-only time is a lower bound; the outside time must come on top of it.
      expect(ttftWallMs).toBeGreaterThan(((outside + prefill) / timeScale) * 0.97);
    } finally {
      await sim.close();
    }
  });
});
