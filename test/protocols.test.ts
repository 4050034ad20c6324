// Every streaming protocol keeps OpenAI chat's truth: known timings, reasoning before answer, usage present and absent,
// heartbeats never counted, splits at every byte; on both transports, against a scripted server (the embedded one: protocols-sim.test.ts).
import { describe, it, expect, afterEach, beforeAll, afterAll } from 'vitest';
import { run } from '../src/run.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { PROTOCOLS, storyBytes, storySteps, type Protocol, type Story } from './fixtures/protocol-streams.js';
import { tmpDir } from './helpers.js';
import { SseParser } from '../src/backends/sse.js';
import { getBackend } from '../src/backends/registry.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Timers fire up to ~1 ms early (EARLY) or tens of ms late on a busy shared 2-core machine (LATE).
const EARLY = 2;
const LATE = 150;
const TRANSPORTS = ['h1', 'undici'] as const;

async function one(p: Protocol, story: Story, transport: 'h1' | 'undici'): Promise<RequestRecord> {
  server = await startScriptServer(() => ({ steps: storySteps(p, story) }));
  const res = await run({ validate: false, baseUrl: server.baseUrl, backend: p, requests: 1, concurrency: 1, inputTokens: 16, outputTokens: 5, out: tmpDir(), quiet: true, transport, serverMetrics: false });
  await server.close();
  server = undefined;
  return res.records[0];
}

/** The token-carrying events of a record, in order: what TTFT, TTFAT, ITL and TPOT are computed from. */
const tokenKinds = (r: RequestRecord) => r.event_kinds.replace(/[^aR]/g, '');

const reasoningStory: Story = {
  beats: [
    { at: 50, reasoning: 'think' },
    { at: 80, ping: true },
    { at: 100, reasoning: ' more' },
    { at: 250, answer: 'answer' },
    { at: 300, ping: true },
    { at: 330, answer: ' done' },
  ],
  usage: { prompt: 16, completion: 4, reasoning: 2 },
  endAt: 360,
};

describe.each(TRANSPORTS)('protocols against known timings (%s)', (transport) => {
  it.each(PROTOCOLS)('%s: TTFT at the first reasoning delta, TTFAT at the first answer delta, ITL between deltas, heartbeats not counted', async (p) => {
    const rec = await one(p, reasoningStory, transport);
    expect(rec.status).toBe('ok');
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(50 - EARLY);
    expect(rec.ttft_ms!).toBeLessThan(50 + LATE);
    expect(rec.ttfat_ms!).toBeGreaterThanOrEqual(250 - EARLY);
    expect(rec.ttfat_ms!).toBeLessThan(250 + LATE);
    expect(tokenKinds(rec)).toBe('RRaa');
    expect(rec.itl_ms).toHaveLength(3);
    // ITL spans first to last token event: 330 − 50 = 280 ms, each gap between deltas (pings in between ignored).
    const itlSum = rec.itl_ms.reduce((a, b) => a + b, 0);
    expect(itlSum).toBeCloseTo(rec.event_times_ms[rec.event_kinds.lastIndexOf('a')] - rec.ttft_ms!, 6);
    expect(itlSum).toBeGreaterThan(280 - LATE);
    expect(itlSum).toBeLessThan(280 + LATE);
    // Heartbeats are their own kind (c for SSE comments, h for ping/keepalive events), in the event list but nowhere else.
    const beats = rec.event_kinds.replace(/[^ch]/g, '');
    expect(beats).toBe(p === 'openai-chat' ? 'cc' : 'hh');
    expect(rec.chunks).toBe(rec.event_kinds.length - 2);
    expect(rec.first_event_ms!).toBeLessThan(rec.ttft_ms!);
    expect(rec.input_tokens).toBe(16);
    expect(rec.output_tokens).toBe(4);
    expect(rec.token_source).toBe('usage');
    // Anthropic reports no reasoning count.
    expect(rec.reasoning_tokens).toBe(p === 'anthropic-messages' ? null : 2);
    expect(rec.e2e_ms!).toBeGreaterThanOrEqual(360 - EARLY);
  });

  it('usage absent: every protocol counts the same text with the tokenizer and says so', async () => {
    const story: Story = { beats: [{ at: 10, reasoning: 'a short thought' }, { at: 30, answer: 'Hello there, world' }], endAt: 40 };
    const recs: RequestRecord[] = [];
    for (const p of PROTOCOLS) recs.push(await one(p, story, transport));
    for (const r of recs) {
      expect(r.status).toBe('ok');
      expect(r.token_source).toBe('tokenizer');
      expect(tokenKinds(r)).toBe('Ra');
    }
    expect(new Set(recs.map((r) => `${r.output_tokens}/${r.reasoning_tokens}/${r.input_tokens}`)).size).toBe(1);
    expect(recs[0].output_tokens).toBeGreaterThan(recs[0].reasoning_tokens!);
  });
});

describe('protocol streams split at every byte', () => {
  /** What a backend makes of a stream fed in the given pieces: event kinds, text and usage. */
  function read(p: Protocol, pieces: Buffer[]) {
    const b = getBackend(p);
    let kinds = '';
    let text = '';
    let usage = '';
    const parser = new SseParser((ev) => {
      if (ev.type === 'comment') return void (kinds += 'c');
      const info = ev.event === 'error' ? b.classifyErrorEvent(ev.data) : b.classifyData(ev.data, ev.event);
      kinds += info.kind;
      text += `${info.reasoning}|${info.answer}|`;
      if (info.usage) usage += JSON.stringify(info.usage);
    });
    for (const piece of pieces) parser.push(piece);
    parser.end();
    return { kinds, text, usage };
  }

  it.each(PROTOCOLS)('%s: any two-piece split and a byte-at-a-time feed read like the whole stream (UTF-8 included)', (p) => {
    const story: Story = { beats: [{ at: 0, reasoning: 'é思' }, { at: 0, ping: true }, { at: 0, answer: 'naïve 🚀' }], usage: { prompt: 3, completion: 4, reasoning: 1 }, endAt: 0 };
    const bytes = storyBytes(p, story);
    const whole = read(p, [bytes]);
    expect(whole.kinds.replace(/[^aRch]/g, '')).toBe(p === 'openai-chat' ? 'Rca' : 'Rha');
    expect(whole.text).toContain('é思');
    for (let k = 1; k < bytes.length; k++) expect(read(p, [bytes.subarray(0, k), bytes.subarray(k)])).toEqual(whole);
    expect(read(p, [...bytes].map((x) => Buffer.from([x])))).toEqual(whole);
  });
});

describe.each(TRANSPORTS)('empty keep-alive events (%s)', (transport) => {
  it.each(PROTOCOLS)('%s: `data:` with nothing and `data: {}` are heartbeats, not malformed JSON, not the first event', async (p) => {
    const steps = storySteps(p, { beats: [{ at: 30, answer: 'Hi' }, { at: 40, answer: ' there' }], usage: { prompt: 16, completion: 2 }, endAt: 50 });
    // Keep-alives before anything else and between the deltas.
    steps.unshift({ at: 0, write: 'data:\n\n' }, { at: 0, write: 'data: {}\n\n' });
    steps.splice(3, 0, { at: 35, write: 'data:\n\n' });
    server = await startScriptServer(() => ({ steps }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, backend: p, requests: 1, inputTokens: 16, outputTokens: 2, out: tmpDir(), quiet: true, transport, serverMetrics: false });
    const r = res.records[0];
    expect(r.status, String(r.error)).toBe('ok');
    expect(r.event_kinds.startsWith('hh')).toBe(true);
    expect(r.event_kinds.replace(/[^h]/g, '')).toBe('hhh');
    expect(r.first_event_ms).toBe(r.event_times_ms[2]);
    expect(tokenKinds(r)).toBe('aa');
    expect(r.output_tokens).toBe(2);
  });
});

describe('anthropic-messages credentials', () => {
  it('sends the key as x-api-key with anthropic-version, no Authorization, and writes it nowhere, even when the server echoes it', async () => {
    const key = 'sk-ant-api03-ECHOED0123456789abcdefSECRET';
    const echo = `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${key}` } })}\n\n`;
    server = await startScriptServer(() => ({ steps: [{ at: 0, write: echo }] }));
    const out = tmpDir();
    const res = await run({ validate: false, baseUrl: server.baseUrl, backend: 'anthropic-messages', apiKey: key, requests: 1, inputTokens: 8, outputTokens: 2, out, quiet: true, serverMetrics: false });
    expect(res.records[0]).toMatchObject({ status: 'http_error', code: 'E_STREAM_ERROR_EVENT' });
    const h = server.rawHeaders[0].map((x, i, a) => (i % 2 === 0 ? `${x.toLowerCase()}: ${a[i + 1]}` : '')).filter(Boolean);
    expect(h).toContain(`x-api-key: ${key}`);
    expect(h).toContain('anthropic-version: 2023-06-01');
    expect(h.some((l) => l.startsWith('authorization:'))).toBe(false);
    for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8'), f).not.toContain('ECHOED');
  });
});
