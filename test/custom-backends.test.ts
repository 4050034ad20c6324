// custom-sse and custom-ndjson: a template and JSON-pointer mapping drive a whole run; a bad mapping is exit 2, nothing sent.
import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import { startScriptServer, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const EARLY = 2;
// Wider than metrics-timing.test.ts: these ran at a load average of 17 on 2 cores; the exact checks below are load-free.
const LATE = 400;
const TPOT_TOL = 45;

function specFile(spec: unknown, name = 'gw.json'): string {
  const p = join(tmpDir(), name);
  writeFileSync(p, typeof spec === 'string' ? spec : JSON.stringify(spec));
  return p;
}

/** A gateway that wraps text in its own envelope: reasoning first, then answer, counts and a status on the last line. */
const GATEWAY = {
  path: '/gw/stream',
  endpoint: 'chat',
  request: { input: { messages: '{{messages}}' }, settings: { model: '{{model}}', max: '{{max_tokens}}', stream: '{{stream}}', note: 'model={{model}}' } },
  response: {
    answer: '/out/text',
    reasoning: '/out/thought',
    input_tokens: '/meta/usage/in',
    output_tokens: '/meta/usage/out',
    finish_reason: '/meta/why',
    error: '/fault',
    done: '/status~1final',
  },
};

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const EVENTS = [
  { at: 50, o: { out: { thought: 'hmm' } } },
  { at: 100, o: { out: { text: 'a1' } } },
  { at: 150, o: { out: { text: ' a2' } } },
  { at: 200, o: { out: { text: ' a3' } } },
  { at: 200, o: { meta: { usage: { in: 16, out: 4 }, why: 'stop' }, 'status/final': true } },
];

async function one(kind: 'custom-sse' | 'custom-ndjson', script: Script, transport: 'h1' | 'undici') {
  server = await startScriptServer(() => script);
  const res = await run({ validate: false, baseUrl: server.baseUrl, backend: kind, backendConfig: specFile(GATEWAY), requests: 1, concurrency: 1, inputTokens: 16, outputTokens: 5, out: tmpDir(), quiet: true, transport, serverMetrics: false });
  const got = { rec: res.records[0], body: server.bodies[0] as Record<string, unknown>, url: server.urls[0] };
  await server.close();
  server = undefined;
  return got;
}

describe('custom backends: template and mapping', () => {
  for (const kind of ['custom-ndjson', 'custom-sse'] as const) {
    it(`${kind}: the template is filled with typed values; pointers map reasoning, answer, counts and the end; alike on h1 and undici`, async () => {
      const frame = kind === 'custom-ndjson' ? line : sse;
      const script: Script = { headers: kind === 'custom-ndjson' ? { 'content-type': 'application/x-ndjson' } : {}, steps: EVENTS.map((e) => ({ at: e.at, write: frame(e.o) })) };
      const seen: unknown[] = [];
      for (const transport of ['h1', 'undici'] as const) {
        const { rec, body, url } = await one(kind, script, transport);
        expect(url).toBe('/v1/gw/stream');
        const settings = body.settings as Record<string, unknown>;
        expect(Array.isArray((body.input as Record<string, unknown>).messages)).toBe(true);
        expect(settings).toEqual({ model: 'scripted-model', max: 5, stream: true, note: 'model=scripted-model' });
        expect(rec.status, rec.error ?? '').toBe('ok');
        expect(rec.event_kinds).toBe('Raaad');
        expect(rec.ttft_ms!).toBeGreaterThanOrEqual(50 - EARLY);
        expect(rec.ttft_ms!).toBeLessThan(50 + LATE);
        expect(rec.ttfat_ms!).toBeGreaterThanOrEqual(100 - EARLY);
        expect(rec.ttfat_ms!).toBeLessThan(100 + LATE);
        // TPOT = (last − first content) / (output − 1) = (200 − 50) / 3 = 50
        expect(rec.tpot_ms!).toBeGreaterThan(50 - TPOT_TOL);
        expect(rec.tpot_ms!).toBeLessThan(50 + TPOT_TOL);
        expect(rec.itl_ms).toHaveLength(3);
        expect([rec.input_tokens, rec.output_tokens, rec.token_source, rec.finish_reason]).toEqual([16, 4, 'usage', 'stop']);
        expect([rec.reasoning_chars, rec.answer_chars]).toEqual([3, 'a1 a2 a3'.length]);
        seen.push([rec.event_kinds, rec.output_tokens, rec.finish_reason]);
      }
      expect(seen[1]).toEqual(seen[0]);
    });
  }

  it('--workers 2: worker threads get the checked spec and read responses by it', async () => {
    const frame = EVENTS.map((e) => ({ at: e.at / 10, write: line(e.o) }));
    server = await startScriptServer(() => ({ headers: { 'content-type': 'application/x-ndjson' }, steps: frame }));
    const res = await run({ validate: false, baseUrl: server.baseUrl, backend: 'custom-ndjson', backendConfig: specFile(GATEWAY), requests: 4, concurrency: 2, workers: 2, inputTokens: 16, outputTokens: 5, out: tmpDir(), quiet: true, serverMetrics: false });
    expect(res.summary.run.workers).toBe(2);
    expect(res.records.map((r) => [r.status, r.event_kinds, r.output_tokens])).toEqual(Array(4).fill(['ok', 'Raaad', 4]));
  });

  it('an error the mapping points at fails the request as a stream error event', async () => {
    const steps = [{ at: 10, write: line({ out: { text: 'x' } }) }, { at: 20, write: line({ fault: { code: 'overloaded' } }) }];
    const { rec } = await one('custom-ndjson', { headers: { 'content-type': 'application/x-ndjson' }, steps }, 'h1');
    expect([rec.status, rec.code]).toEqual(['http_error', 'E_STREAM_ERROR_EVENT']);
    expect(rec.error).toContain('overloaded');
  });
});

describe('custom backends: bad --backend-config is exit 2, one message naming the field, nothing sent', () => {
  const cases: [string, () => string[], RegExp][] = [
    ['a pointer that is not RFC 6901', () => ['--backend', 'custom-sse', '--backend-config', specFile({ ...GATEWAY, response: { answer: 'out.text' } })], /--backend-config: .*gw\.json: response\.answer: "out\.text" is not a JSON pointer \(RFC 6901\)/],
    ['an unknown placeholder', () => ['--backend', 'custom-ndjson', '--backend-config', specFile({ ...GATEWAY, request: { q: '{{question}}' } })], /--backend-config: .*: request\.q: unknown placeholder \{\{question\}\}/],
    ['a template without the prompt', () => ['--backend', 'custom-ndjson', '--backend-config', specFile({ ...GATEWAY, request: { q: 'fixed' } })], /request: has no \{\{prompt\}\} or \{\{messages\}\} placeholder/],
    ['a path that leaves the base path (issue 25 item 27)', () => ['--backend', 'custom-sse', '--backend-config', specFile({ path: '/../../x', request: { p: '{{prompt}}' }, response: { answer: '/a' } })], /--backend-config: .*: path: expected a path below --base-url/],
    ['a path with a fragment', () => ['--backend', 'custom-sse', '--backend-config', specFile({ path: '/gen#frag', request: { p: '{{prompt}}' }, response: { answer: '/a' } })], /--backend-config: .*: path: a fragment/],
    ['a missing answer pointer', () => ['--backend', 'custom-sse', '--backend-config', specFile({ path: '/x', request: { p: '{{prompt}}' }, response: {} })], /--backend-config: .*: response\.answer: expected a JSON pointer string/],
    ['an unknown mapping key', () => ['--backend', 'custom-sse', '--backend-config', specFile({ ...GATEWAY, response: { answer: '/a', usage: '/u' } })], /--backend-config: .*: response: .*usage/i],
    ['a file that does not exist', () => ['--backend', 'custom-sse', '--backend-config', '/nonexistent/gw.yaml'], /--backend-config: \/nonexistent\/gw\.yaml: cannot read/],
    ['a file that is not JSON or YAML', () => ['--backend', 'custom-sse', '--backend-config', specFile('path: [unclosed', 'bad.yaml')], /--backend-config: .*bad\.yaml: not JSON or YAML/],
    ['a custom backend without --backend-config', () => ['--backend', 'custom-ndjson'], /--backend-config: --backend custom-ndjson needs a file/],
    ['--no-stream with a stream-only backend', () => ['--backend', 'tgi', '--no-stream'], /--no-stream: --backend tgi always streams/],
    ['--backend-config with another backend', () => ['--backend', 'ollama', '--backend-config', specFile(GATEWAY)], /--backend-config: only applies with --backend custom-sse, custom-ndjson or websocket/],
  ];
  for (const [name, argv, re] of cases) {
    it(name, async () => {
      server = await startScriptServer(() => ({ steps: [] }));
      const c = capture();
      const code = await main(['run', '--no-validate', ...argv(), '--base-url', server.baseUrl, '--requests', '1', '--quiet'], c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toMatch(re);
      expect(c.err).not.toMatch(/internal error|at .*\.ts:\d+/);
      expect(server.bodies).toHaveLength(0);
    });
  }
});
