// The websocket backend end to end: known timings, heartbeats, servers that close mid-stream, reuse, custom mappings, the embedded server.
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { startScriptServer, chatChunk, usageChunk, DONE } from './fixtures/script-server.js';
import { startWsScriptServer, wsDelta, wsUsage, WS_DONE, WS_PING, type WsScript, type WsScriptServer } from './fixtures/ws-script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: WsScriptServer | undefined;
let sim: SimServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  await sim?.close();
  server = sim = undefined;
});

// Tolerances for a busy, shared 2-core machine (as in metrics-timing.test.ts): timers fire up to ~1 ms early or
// tens of ms late; a TPOT is a difference of two such times.
const EARLY = 2;
const LATE = 150;
const TPOT_TOL = 30;

async function runWs(pick: (msg: unknown, n: number) => WsScript, extra: Record<string, unknown> = {}) {
  server = await startWsScriptServer(pick);
  const res = await run({ baseUrl: server.baseUrl, backend: 'websocket', model: 'm', requests: 1, concurrency: 1, inputTokens: 16, outputTokens: 5, out: tmpDir(), quiet: true, ...extra });
  return res;
}

describe('websocket backend against a scripted loopback WebSocket server', () => {
  it('TTFT, TTFAT, TPOT, ITL and E2E follow their formulas; usage is the token source', async () => {
    const steps = [
      { at: 0, send: wsDelta({ role: 'assistant', content: '' }) },
      { at: 50, send: wsDelta({ reasoning_content: 'think' }) },
      ...[150, 200, 250].map((at, i) => ({ at, send: wsDelta({ content: ` w${i}` }) })),
      { at: 250, send: wsUsage(16, 4, 1) },
      { at: 250, send: WS_DONE },
    ];
    const { records } = await runWs(() => ({ steps }));
    const rec = records[0];
    expect(rec.status, rec.error ?? '').toBe('ok');
    expect(rec.event_kinds).toBe('rRaaaud');
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(50 - EARLY);
    expect(rec.ttft_ms!).toBeLessThan(50 + LATE);
    expect(rec.ttfat_ms!).toBeGreaterThanOrEqual(150 - EARLY);
    expect(rec.ttfat_ms!).toBeLessThan(150 + LATE);
    expect(rec.first_event_ms!).toBeLessThan(rec.ttft_ms!);
    // (last token event − first token event) / (output_tokens − 1) = (250 − 50) / 3
    expect(rec.tpot_ms!).toBeGreaterThan(200 / 3 - TPOT_TOL);
    expect(rec.tpot_ms!).toBeLessThan(200 / 3 + TPOT_TOL);
    expect(rec.itl_ms).toHaveLength(3);
    expect(rec.itl_ms.reduce((a, b) => a + b, 0)).toBeCloseTo(rec.event_times_ms[4] - rec.event_times_ms[1], 6);
    expect(rec.e2e_ms!).toBeGreaterThanOrEqual(250 - EARLY);
    expect(rec.e2e_ms).toBe(rec.event_times_ms[6]);
    expect(rec).toMatchObject({ input_tokens: 16, output_tokens: 4, reasoning_tokens: 1, token_source: 'usage', streamed: true, chunks: 7 });
    expect(server!.messages[0]).toMatchObject({ model: 'm', max_tokens: 5, stream: true, messages: [{ role: 'user' }] });
  });

  it('the same timeline gives the same record as OpenAI chat over SSE (both transports)', async () => {
    // (at ms, delta): role chunk, reasoning, then answer; usage; end.
    const timeline: [number, Record<string, unknown>][] = [[0, { role: 'assistant', content: '' }], [40, { reasoning_content: 'r' }], [90, { content: 'a' }], [140, { content: 'b' }]];
    const ws = (await runWs(() => ({ steps: [...timeline.map(([at, d]) => ({ at, send: wsDelta(d) })), { at: 140, send: wsUsage(16, 3, 1) }, { at: 140, send: WS_DONE }] }))).records[0];
    await server!.close();
    server = undefined;
    const sse = await startScriptServer(() => ({ steps: [...timeline.map(([at, d]) => ({ at, write: chatChunk(d) })), { at: 140, write: usageChunk(16, 3, 1) }, { at: 140, write: DONE }] }));
    try {
      for (const transport of ['h1', 'undici'] as const) {
        const chat = (await run({ baseUrl: sse.baseUrl, transport, requests: 1, inputTokens: 16, outputTokens: 5, out: tmpDir(), quiet: true })).records[0];
        for (const k of ['status', 'event_kinds', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'token_source', 'chunks', 'answer_chars', 'reasoning_chars', 'streamed'] as const)
          expect(ws[k], `${k} (${transport})`).toEqual(chat[k]);
        expect(ws.itl_ms).toHaveLength(chat.itl_ms.length);
        for (const r of [ws, chat]) {
          expect(r.ttft_ms!).toBeGreaterThanOrEqual(40 - EARLY);
          expect(r.ttfat_ms!).toBeGreaterThanOrEqual(90 - EARLY);
          expect(r.ttfat_ms!).toBeLessThan(90 + LATE);
        }
      }
    } finally {
      await sse.close();
    }
  });

  it('without usage, tokens are counted with the tokenizer and say so', async () => {
    const steps = [
      { at: 10, send: wsDelta({ content: 'Hello' }) },
      { at: 20, send: wsDelta({ content: ' world' }) },
      { at: 30, send: WS_DONE },
    ];
    const rec = (await runWs(() => ({ steps }))).records[0];
    expect(rec.status).toBe('ok');
    expect(rec.token_source).toBe('tokenizer');
    expect(rec.output_tokens).toBeGreaterThan(0);
    expect(rec.input_tokens).toBe(rec.expected_input_tokens);
  });

  it('heartbeat messages and ping frames are their own event kind, never tokens nor chunks', async () => {
    const steps = [
      { at: 0, send: WS_PING },
      { at: 30, send: wsDelta({ content: 'a' }) },
      { at: 60, send: WS_PING },
      { at: 90, ping: true },
      { at: 120, send: wsDelta({ content: 'b' }) },
      { at: 120, send: wsUsage(16, 2) },
      { at: 120, send: WS_DONE },
    ];
    const rec = (await runWs(() => ({ steps }))).records[0];
    expect(rec.status, rec.error ?? '').toBe('ok');
    expect(rec.event_kinds).toBe('hahhaud');
    expect(rec.chunks).toBe(4);
    expect(rec.output_tokens).toBe(2);
    // TTFT and first_event skip the heartbeat at 0 ms; the ITL spans the heartbeats between the two tokens.
    expect(rec.first_event_ms!).toBeGreaterThanOrEqual(30 - EARLY);
    expect(rec.ttft_ms!).toBe(rec.event_times_ms[1]);
    expect(rec.itl_ms).toEqual([rec.event_times_ms[4] - rec.event_times_ms[1]]);
    // It ends past the last heartbeat (the ping frame): heartbeats never split it. (Not a fixed 90 ms: the server's
    // step at 30 ms can fire late while the one at 120 ms is on time.)
    expect(rec.itl_ms[0]).toBeGreaterThan(rec.event_times_ms[3] - rec.event_times_ms[1]);
  });

  it('a message sent in fragments is one event, timed when its last fragment arrives', async () => {
    const msg = JSON.stringify(wsDelta({ content: 'split' }));
    const half = Math.floor(msg.length / 2);
    const steps = [
      { at: 10, fragment: { data: msg.slice(0, half), fin: false } },
      { at: 80, fragment: { data: msg.slice(half), fin: true } },
      { at: 90, send: WS_DONE },
    ];
    const rec = (await runWs(() => ({ steps }))).records[0];
    expect(rec.status, rec.error ?? '').toBe('ok');
    expect(rec.event_kinds).toBe('ad');
    expect(rec.answer_chars).toBe(5);
    expect(rec.ttft_ms!).toBeGreaterThanOrEqual(80 - EARLY);
    expect(rec.ttft_ms!).toBeLessThan(80 + LATE);
  });

  it('a server that drops the connection mid-stream gives a failed record (E_WS_CLOSED); the next request gets a new connection', async () => {
    const res = await runWs(
      (_m, n) =>
        n === 0
          ? { steps: [{ at: 10, send: wsDelta({ content: 'a' }) }, { at: 20, send: wsDelta({ content: 'b' }) }, { at: 30, terminate: true }] }
          : { steps: [{ at: 10, send: wsDelta({ content: 'c' }) }, { at: 10, send: WS_DONE }] },
      { requests: 2 },
    );
    const [a, b] = [...res.records].sort((x, y) => x.id - y.id);
    expect(a).toMatchObject({ status: 'network_error', code: 'E_WS_CLOSED', ttft_ms: null });
    expect(a.error).toMatch(/^WebSocket closed mid-stream \(close code 1006: no close frame: the connection dropped\)$/);
    expect(a.event_kinds).toBe('aa');
    expect(b.status).toBe('ok');
    expect(b.connection_reused).toBe(false);
    expect(server!.connections()).toBe(2);
  });

  it('a stream that never ends is a timeout; its connection is dropped, not handed to the next request', async () => {
    const res = await runWs(
      (_m, n) => (n === 0 ? { steps: [{ at: 5, send: wsDelta({ content: 'a' }) }] } : { steps: [{ at: 5, send: wsDelta({ content: 'b' }) }, { at: 5, send: WS_DONE }] }),
      { requests: 2, timeout: 0.4 },
    );
    const [a, b] = [...res.records].sort((x, y) => x.id - y.id);
    expect(a).toMatchObject({ status: 'timeout', code: 'E_TIMEOUT' });
    expect(b).toMatchObject({ status: 'ok', connection_reused: false, event_kinds: 'ad' });
  });

  it('a message longer than --max-line-bytes fails its request as E_LINE_TOO_LONG; the run goes on', async () => {
    const res = await runWs(
      (_m, n) =>
        n === 0
          ? { steps: [{ at: 5, send: wsDelta({ content: 'x'.repeat(2000) }) }] }
          : { steps: [{ at: 5, send: wsDelta({ content: 'b' }) }, { at: 5, send: WS_DONE }] },
      { requests: 2, maxLineBytes: 1024 },
    );
    const [a, b] = [...res.records].sort((x, y) => x.id - y.id);
    expect(a).toMatchObject({ status: 'parse_error', code: 'E_LINE_TOO_LONG', error: 'a WebSocket message longer than 1024 bytes (--max-line-bytes)' });
    expect(b.status).toBe('ok');
  });

  it('a close frame before any message names its code and (inert) reason', async () => {
    const rec = (await runWs(() => ({ steps: [{ at: 5, close: { code: 1011, reason: 'overloaded\u001b[2J' } }] }))).records[0];
    expect(rec).toMatchObject({ status: 'network_error', code: 'E_WS_CLOSED' });
    expect(rec.error).toBe('WebSocket closed before any message (close code 1011: overloaded [2J)');
  });

  it('an error message ends the request as E_STREAM_ERROR_EVENT; a non-JSON message is E_WS_PARSE', async () => {
    const res = await runWs(
      (_m, n) =>
        n === 0
          ? { steps: [{ at: 5, send: wsDelta({ content: 'a' }) }, { at: 10, send: { error: { message: 'quota exceeded' } } }] }
          : { steps: [{ at: 5, send: 'not json' }, { at: 6, send: wsDelta({ content: 'a' }) }, { at: 7, send: WS_DONE }] },
      { requests: 2 },
    );
    const [a, b] = [...res.records].sort((x, y) => x.id - y.id);
    expect(a).toMatchObject({ status: 'http_error', code: 'E_STREAM_ERROR_EVENT', error: 'error message in stream: quota exceeded' });
    expect(b).toMatchObject({ status: 'parse_error', code: 'E_WS_PARSE' });
  });

  it('a non-JSON message fails its request at once as E_WS_PARSE, not at --timeout (issue 25 item 27)', async () => {
    const t0 = performance.now();
    const res = await runWs(() => ({ steps: [{ at: 5, send: 'hello, not json' }] }), { timeout: 60 });
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(res.records[0]).toMatchObject({ status: 'parse_error', code: 'E_WS_PARSE' });
    expect(res.records[0].end_ms!).toBeLessThan(5_000);
  });

  it('a ping flood ends its request with a record that says so; a drop without a close frame is explained', async () => {
    const res = await runWs(
      (_m, n) => (n === 0 ? { steps: [{ at: 5, send: wsDelta({ content: 'a' }) }, { at: 10, pings: 5000 }, { at: 2000, send: WS_DONE }] } : { steps: [{ at: 5, terminate: true }] }),
      { requests: 2, timeout: 30 },
    );
    const [a, b] = [...res.records].sort((x, y) => x.id - y.id);
    expect(a).toMatchObject({ status: 'network_error', code: 'E_WS_CLOSED' });
    expect(a.error).toMatch(/ping flood \(over 1000 pings within 1 s\)/);
    expect(b).toMatchObject({ status: 'network_error', code: 'E_WS_CLOSED' });
    expect(b.error).toBe('WebSocket closed before any message (close code 1006: no close frame: the connection dropped)');
  });

  it('an upgrade answered with HTTP 401 is an http_error record, not a crash', async () => {
    server = await startWsScriptServer(() => ({ steps: [] }), { rejectWith: 401 });
    const res = await run({ baseUrl: server.baseUrl, backend: 'websocket', model: 'm', requests: 1, prewarm: 'off', out: tmpDir(), quiet: true, outputTokens: 4 });
    expect(res.records[0]).toMatchObject({ status: 'http_error', code: 'E_HTTP_401', http_status: 401 });
  });

  it('opens one connection per stream before the clock and reuses it for the next requests', async () => {
    const steps = [{ at: 5, send: wsDelta({ content: 'x' }) }, { at: 5, send: WS_DONE }];
    const res = await runWs(() => ({ steps }), { requests: 6, concurrency: 2, apiKey: 'sk-ws-test-key' });
    expect(res.records.every((r) => r.status === 'ok')).toBe(true);
    expect(res.records.every((r) => r.connection_reused === true)).toBe(true);
    expect(server!.connections()).toBe(2);
    expect(server!.upgradeHeaders[0].authorization).toBe('Bearer sk-ws-test-key');
  });

  it('follows a custom mapping: several messages per request, placeholders, conditions on the message type', async () => {
    const cfg = join(tmpDir(), 'ws.yaml');
    writeFileSync(
      cfg,
      [
        'websocket:',
        '  request:',
        '    - { type: conversation.item.create, item: { type: message, role: user, content: [{ type: input_text, text: "{{prompt}}" }] } }',
        '    - { type: response.create, response: { output_modalities: [text], max_output_tokens: "{{max_tokens}}", metadata: { id: "req-{{request_id}}" } } }',
        '  answer: { pointer: /delta, when: { /type: response.output_text.delta } }',
        '  reasoning: { pointer: /delta, when: { /type: response.reasoning_text.delta } }',
        '  input_tokens: /response/usage/input_tokens',
        '  output_tokens: /response/usage/output_tokens',
        '  done: { when: { /type: response.done } }',
        '  error: { pointer: /error, when: { /type: error } }',
        '  heartbeat: { when: { /type: keepalive } }',
        '  reuse_connection: false',
      ].join('\n'),
    );
    const steps = [
      { at: 0, send: { type: 'response.created' } },
      { at: 20, send: { type: 'response.reasoning_text.delta', delta: 'hm' } },
      { at: 40, send: { type: 'keepalive' } },
      { at: 60, send: { type: 'response.output_text.delta', delta: 'Hi' } },
      { at: 80, send: { type: 'response.output_text.delta', delta: ' there' } },
      { at: 80, send: { type: 'response.done', response: { usage: { input_tokens: 16, output_tokens: 3 } } } },
    ];
    server = await startWsScriptServer(() => ({ steps }), { isRequest: (m) => (m as { type?: string }).type === 'response.create' });
    const res = await run({ baseUrl: server.baseUrl, backend: 'websocket', backendConfig: cfg, model: 'm', requests: 2, concurrency: 1, inputTokens: 16, outputTokens: 5, out: tmpDir(), quiet: true });
    const recs = [...res.records].sort((x, y) => x.id - y.id);
    // reuse_connection: false: the prewarmed connection serves the first request, a new one the second.
    expect(recs.map((r) => r.connection_reused)).toEqual([true, false]);
    for (const rec of recs) {
      expect(rec.status, rec.error ?? '').toBe('ok');
      expect(rec.event_kinds).toBe('xRhaau');
      expect(rec.ttft_ms).toBe(rec.event_times_ms[1]);
      expect(rec.ttfat_ms).toBe(rec.event_times_ms[3]);
      expect(rec).toMatchObject({ input_tokens: 16, output_tokens: 3, token_source: 'usage' });
    }
    const [item, create] = server.messages as Record<string, any>[];
    expect(item.item.content[0].text.length).toBeGreaterThan(10);
    expect(create.response).toMatchObject({ max_output_tokens: 5, metadata: { id: expect.stringMatching(/^req-\d+$/) } });
    expect(server.messages).toHaveLength(4);
    expect(server.connections()).toBe(2);
  });
});

describe('websocket backend against the embedded server (/v1/ws)', () => {
  it('streams the same record as chat, with heartbeats and a fault that closes mid-stream', async () => {
    sim = await startSimServer({ timeScale: 2, faults: { heartbeat: { every: 1, intervalMs: 3 }, drop: { every: 3, afterTokens: 8 } } });
    const res = await run({ baseUrl: sim.baseUrl, backend: 'websocket', requests: 6, concurrency: 2, inputTokens: 64, outputTokens: 32, out: tmpDir(), quiet: true });
    const ok = res.records.filter((r) => r.status === 'ok');
    const dropped = res.records.filter((r) => r.status !== 'ok');
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    for (const r of dropped) expect(r).toMatchObject({ status: 'network_error', code: 'E_WS_CLOSED' });
    expect(ok.length).toBeGreaterThanOrEqual(3);
    for (const r of ok) {
      expect(r).toMatchObject({ output_tokens: 32, input_tokens: 64, token_source: 'usage' });
      expect(r.ttft_ms).toBe(r.event_times_ms[r.event_kinds.search(/[aR]/)]);
      expect(r.event_kinds).toMatch(/^[rh]*a[ah]*u[h]*d$/);
    }
    expect(ok.some((r) => r.event_kinds.includes('h'))).toBe(true);
  });
});

describe('websocket config: bad input exits 2 naming the file and key, nothing sent', () => {
  const cases: [string, string | null, RegExp][] = [
    ['no websocket section', 'other: 1\n', /--backend-config: .*ws-bad\.yaml: expected a mapping with a websocket: section/],
    ['missing answer', 'websocket:\n  request: { a: 1 }\n  done: /done\n', /ws-bad\.yaml: websocket\.answer: /],
    ['a pointer without a leading slash', 'websocket:\n  request: { a: 1 }\n  answer: delta/content\n  done: /done\n', /websocket\.answer: "delta\/content" is not a JSON pointer/],
    ['an unknown placeholder', 'websocket:\n  request: { a: "{{prompt_text}}" }\n  answer: /a\n  done: /done\n', /websocket\.request: unknown placeholder \{\{prompt_text\}\}/],
    ['an http URL', 'websocket:\n  url: http://x/ws\n  request: { a: 1 }\n  answer: /a\n  done: /done\n', /websocket\.url: expected a ws:\/\/ or wss:\/\/ URL/],
    ['an unknown key', 'websocket:\n  request: { a: 1 }\n  answer: /a\n  done: /done\n  answr: /b\n', /websocket: .*answr/],
    ['--backend-config without --backend websocket', null, /--backend-config: only applies with --backend custom-sse, custom-ndjson or websocket/],
  ];
  for (const [name, text, re] of cases)
    it(name, async () => {
      server = await startWsScriptServer(() => ({ steps: [] }));
      const file = join(tmpDir(), 'ws-bad.yaml');
      writeFileSync(file, text ?? 'websocket: {}\n');
      const argv = ['run', '--base-url', server.baseUrl, '--model', 'm', '--backend-config', file, '--quiet', '--requests', '1'];
      if (text !== null) argv.push('--backend', 'websocket');
      const c = capture();
      const code = await main(argv, c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toMatch(re);
      expect(server.connections()).toBe(0);
    });
});

describe('a WebSocket server that accepts TCP and never answers the upgrade (issue 25 item 17)', () => {
  let silent: NetServer | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
    silent = undefined;
  });
  async function startSilent(): Promise<string> {
    silent = createNetServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
    });
    await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
  }

  it('prewarm gives up at --timeout, and the requests are failed records', async () => {
    const baseUrl = await startSilent();
    const t0 = performance.now();
    const out = tmpDir();
    const res = await run({ baseUrl, backend: 'websocket', model: 'm', requests: 2, concurrency: 1, timeout: 1, inputTokens: 8, outputTokens: 4, out, quiet: true });
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(res.records.map((r) => [r.status, r.code])).toEqual([
      ['timeout', 'E_TIMEOUT'],
      ['timeout', 'E_TIMEOUT'],
    ]);
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).connections).toMatchObject({ prewarmed: 0, failed: 1 });
  });

  it('a stop (the first Ctrl-C) during prewarm ends the run at once, not after the prewarm deadline', async () => {
    const baseUrl = await startSilent();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const t0 = performance.now();
    const res = await run({ baseUrl, backend: 'websocket', model: 'm', requests: 2, concurrency: 1, timeout: 600, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true }, { signal: ac.signal });
    // The prewarm deadline is min(--timeout, 10 s): ending well before it means the stop reached the prewarm.
    expect(performance.now() - t0).toBeLessThan(8_000);
    expect(res.records.filter((r) => r.status === 'ok')).toEqual([]);
  });
});
