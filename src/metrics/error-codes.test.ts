// The code table is complete: every record code written in src is in it, and every code in it is in the docs.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, codeStatus, httpCode, httpErrorCode, legacyCode, networkCode, streamErrorCode } from './error-codes.js';

const root = join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1));
}

/** Run-level codes of TokenfloodError (src/errors.ts): they end a run, they are never on a record. */
const runCodes = new Set([...read('src/errors.ts').matchAll(/'(E_[A-Z_]+)'/g)].map((m) => m[1]));

describe('error code table', () => {
  it('every E_ code written in src is in the table (run-level codes of src/errors.ts apart)', () => {
    const used = new Map<string, string>();
    for (const f of sources('src')) {
      if (f === 'src/errors.ts') continue;
      for (const m of read(f).matchAll(/['`](E_[A-Z0-9_]+)['`]/g)) if (!runCodes.has(m[1])) used.set(m[1], f);
    }
    expect(used.size).toBeGreaterThan(15);
    for (const [code, file] of used) expect.soft(codeStatus(code), `${code} (${file})`).not.toBeNull();
    expect([...runCodes].filter((c) => c in ERROR_CODES)).toEqual([]);
  });

  it('every H1Error code is a record code', () => {
    const h1 = read('src/backends/h1/errors.ts');
    const union = /export type H1ErrorCode =([^;]+);/.exec(h1)?.[1] ?? '';
    const codes = [...union.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(10);
    for (const c of codes) expect.soft(codeStatus(c), c).toBe('network_error');
  });

  it('docs/metrics.md and docs/output-format.md list every fixed code and both families', () => {
    for (const doc of ['docs/metrics.md', 'docs/output-format.md']) {
      const text = read(doc);
      for (const code of Object.keys(ERROR_CODES)) expect.soft(text, `${code} in ${doc}`).toContain(`\`${code}\``);
      expect.soft(text, doc).toContain('E_HTTP_<status>');
    }
    // metrics.md gives each fixed code's status next to it
    const table = read('docs/metrics.md');
    for (const [code, info] of Object.entries(ERROR_CODES)) expect.soft(table, code).toMatch(new RegExp(`\\| \`${code}\` \\| \`${info.status}\` \\|`));
  });

  it('families: E_HTTP_<status>, and OS/undici codes passed through', () => {
    expect(httpCode(429)).toBe('E_HTTP_429');
    expect(codeStatus('E_HTTP_503')).toBe('http_error');
    expect(codeStatus('ECONNRESET')).toBe('network_error');
    expect(codeStatus('UND_ERR_HEADERS_OVERFLOW')).toBe('network_error');
    expect(codeStatus('E_NO_SUCH_THING')).toBeNull();
    expect(networkCode('UND_ERR_CONNECT_TIMEOUT')).toBe('UND_ERR_CONNECT_TIMEOUT');
    expect(networkCode('TypeError')).toBe('E_NETWORK');
    expect(networkCode(undefined)).toBe('E_NETWORK');
  });

  it('names the cause of an HTTP error from the engines\' own words', () => {
    expect(httpErrorCode(400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens")).toBe('E_CONTEXT_TOO_LONG');
    expect(httpErrorCode(400, '{"error":{"code":"context_length_exceeded"}}')).toBe('E_CONTEXT_TOO_LONG');
    expect(httpErrorCode(400, 'Requested token count exceeds the model\'s maximum context length of 4096 tokens.')).toBe('E_CONTEXT_TOO_LONG');
    expect(httpErrorCode(400, 'the request exceeds the available context size, try increasing it')).toBe('E_CONTEXT_TOO_LONG');
    expect(httpErrorCode(422, 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096')).toBe('E_CONTEXT_TOO_LONG');
    expect(httpErrorCode(400, 'max_tokens is too large: 10000. This model supports at most 4096 completion tokens, whereas you provided 10000.')).toBe('E_MAX_TOKENS_TOO_LARGE');
    expect(httpErrorCode(422, 'Input validation error: `max_new_tokens` must be <= 2048. Given: 4000')).toBe('E_MAX_TOKENS_TOO_LARGE');
    expect(httpErrorCode(400, '{"object":"error","message":"Got priority 3 but Priority scheduling is not enabled.","type":"BadRequestError"}')).toBe('E_PRIORITY_NOT_ENABLED');
    expect(httpErrorCode(400, '{"message":"priority 3 is not a model name"}')).toBe('E_HTTP_400');
    expect(httpErrorCode(500, 'CUDA out of memory. Tried to allocate 2.00 GiB')).toBe('E_SERVER_OOM');
    expect(httpErrorCode(500, 'torch.OutOfMemoryError: ...')).toBe('E_SERVER_OOM');
    expect(httpErrorCode(503, 'EngineDeadError: EngineCore encountered an issue.')).toBe('E_ENGINE_DEAD');
    expect(httpErrorCode(500, 'AsyncEngineDeadError: Background loop has errored already.')).toBe('E_ENGINE_DEAD');
    // A cause only counts with the status it comes with: a 5xx "context" message is a server error, a 4xx "engine dead" a client one.
    expect(httpErrorCode(500, 'context length of the cache is wrong')).toBe('E_HTTP_500');
    expect(httpErrorCode(404, 'engine is dead')).toBe('E_HTTP_404');
    expect(httpErrorCode(429, 'Too many requests')).toBe('E_HTTP_429');
    expect(httpErrorCode(400, '')).toBe('E_HTTP_400');
    expect(streamErrorCode('CUDA out of memory')).toBe('E_SERVER_OOM');
    expect(streamErrorCode('something else')).toBe('E_STREAM_ERROR_EVENT');
  });

  it('derives the code of a record written before the field existed', () => {
    const r = (status: Parameters<typeof legacyCode>[0]['status'], error: string | null, http_status: number | null = null, streamed = true) => legacyCode({ status, error, http_status, streamed });
    expect(r('ok', null, 200)).toBeNull();
    expect(r('http_error', 'HTTP 429: slow down', 429)).toBe('E_HTTP_429');
    expect(r('http_error', 'error event in stream: oops', 200)).toBe('E_STREAM_ERROR_EVENT');
    expect(r('http_error', 'error event in stream: CUDA out of memory', 200)).toBe('E_SERVER_OOM');
    expect(r('http_error', "HTTP 400: {\"message\":\"This model's maximum context length is 4096 tokens\"}", 400)).toBe('E_CONTEXT_TOO_LONG');
    expect(r('http_error', 'HTTP 503', 503)).toBe('E_HTTP_503');
    expect(r('timeout', 'no response headers: nothing received for 1 s (--idle-timeout)')).toBe('E_HEADERS_TIMEOUT');
    expect(r('timeout', 'stream stalled: nothing received for 1 s (--idle-timeout)')).toBe('E_STREAM_STALLED');
    expect(r('timeout', 'no complete response within 3 s')).toBe('E_TIMEOUT');
    expect(r('network_error', 'UND_ERR_SOCKET: other side closed (mid-stream)')).toBe('ECONNRESET');
    expect(r('network_error', 'UND_ERR_SOCKET: bad things (before response headers)')).toBe('UND_ERR_SOCKET');
    expect(r('network_error', 'E_STALE_SOCKET: reused keep-alive connection closed')).toBe('E_STALE_SOCKET');
    expect(r('network_error', 'worker thread failed: boom')).toBe('E_WORKER');
    expect(r('network_error', 'TypeError: fetch failed')).toBe('E_NETWORK');
    expect(r('parse_error', 'malformed JSON in stream: {', null, false)).toBe('E_JSON_PARSE');
    expect(r('parse_error', 'malformed JSON in stream: {')).toBe('E_SSE_PARSE');
    expect(r('cancelled', 'run stopped before the request finished')).toBe('E_CANCELLED');
    expect(r('empty', 'HTTP 200 but the response carried no tokens')).toBe('E_EMPTY');
  });
});
