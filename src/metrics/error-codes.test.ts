// The code table is complete: every record code written in src is in it, and every code in it is in the docs.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, codeStatus, httpCode, legacyCode, networkCode } from './error-codes.js';

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

  it('derives the code of a record written before the field existed', () => {
    const r = (status: Parameters<typeof legacyCode>[0]['status'], error: string | null, http_status: number | null = null, streamed = true) => legacyCode({ status, error, http_status, streamed });
    expect(r('ok', null, 200)).toBeNull();
    expect(r('http_error', 'HTTP 429: slow down', 429)).toBe('E_HTTP_429');
    expect(r('http_error', 'error event in stream: oom', 200)).toBe('E_STREAM_ERROR_EVENT');
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
