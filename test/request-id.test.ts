// Request ids: X-Request-ID `<run id>-<id>` on every request by default, renamed or omitted by flag, stored in the
// record, echoed and logged by the embedded server; on both transports, and in simulate.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { run } from '../src/run.js';
import { simulate } from '../src/simulate.js';
import { UsageError } from '../src/errors.js';
import { startSimServer } from '../src/sim/server.js';
import { readRecords } from '../src/metrics/jsonl.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const steps = [{ at: 0, write: chatChunk({ content: 'hi' }) + usageChunk(8, 1) + DONE }];

/** The values of header `name` (any case) in each POST the scripted server received. */
const sent = (s: ScriptServer, name: string): (string | undefined)[] =>
  s.rawHeaders.map((h) => {
    const i = h.findIndex((k, j) => j % 2 === 0 && k.toLowerCase() === name.toLowerCase());
    return i < 0 ? undefined : h[i + 1];
  });

async function go(transport: 'h1' | 'undici', extra: Record<string, unknown> = {}) {
  server = await startScriptServer(() => ({ steps }));
  const out = tmpDir();
  const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 3, concurrency: 2, inputTokens: 8, outputTokens: 1, out, quiet: true, transport, serverMetrics: false, ...extra });
  const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as Record<string, unknown>;
  const onDisk = readRecords(join(out, 'requests.jsonl')).records;
  return { res, meta, onDisk, server };
}

describe.each(['h1', 'undici'] as const)('request ids (%s)', (transport) => {
  it('sends X-Request-ID <run id>-<request id> by default and stores it in the record and run.json', async () => {
    const { res, meta, onDisk, server: s } = await go(transport);
    expect(meta.run_id).toMatch(/^[0-9a-f]{12}$/);
    expect(meta.request_id_header).toBe('X-Request-ID');
    const want = res.records.map((r) => `${meta.run_id}-${r.id}`).sort();
    expect(res.records.map((r) => r.request_id).sort()).toEqual(want);
    expect(onDisk.map((r) => r.request_id).sort()).toEqual(want);
    expect(sent(s, 'x-request-id').sort()).toEqual(want);
  });

  it('--request-id-header renames it', async () => {
    const { res, meta, server: s } = await go(transport, { requestIdHeader: 'X-Correlation-ID' });
    expect(meta.request_id_header).toBe('X-Correlation-ID');
    expect(sent(s, 'x-correlation-id').sort()).toEqual(res.records.map((r) => r.request_id).sort());
    expect(sent(s, 'x-request-id')).toEqual([undefined, undefined, undefined]);
  });

  it('--no-request-id omits it (and the record says null); a --header X-Request-ID then goes as given', async () => {
    const { res, meta, onDisk, server: s } = await go(transport, { requestId: false, header: ['X-Request-ID: mine'] });
    expect(meta.request_id_header).toBeNull();
    expect(res.records.map((r) => r.request_id)).toEqual([null, null, null]);
    expect(onDisk.map((r) => r.request_id)).toEqual([null, null, null]);
    expect(sent(s, 'x-request-id')).toEqual(['mine', 'mine', 'mine']);
  });

  it('the embedded server echoes the id and logs it', async () => {
    const lines: string[] = [];
    const sim = await startSimServer({ timeScale: 50, logRequests: true }, { log: (l) => lines.push(l) });
    try {
      const res = await run({ validate: false, baseUrl: sim.baseUrl, requests: 2, concurrency: 2, inputTokens: 8, outputTokens: 2, out: tmpDir(), quiet: true, transport, serverMetrics: false });
      for (const r of res.records) expect(lines.some((l) => l.includes(`POST /v1/chat/completions 200 request_id="${r.request_id}"`)), lines.join('\n')).toBe(true);
      const echo = await request(`${sim.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'abc-7' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
      });
      await echo.body.text();
      expect(echo.headers['x-request-id']).toBe('abc-7');
    } finally {
      await sim.close();
    }
  });
});

describe('request id flags: bad input', () => {
  it('a header name that is not an HTTP token, or a --header of the same name, is a usage error naming the flag; nothing is sent', async () => {
    server = await startScriptServer(() => ({ steps }));
    const base = { baseUrl: server.baseUrl, requests: 1, out: tmpDir(), quiet: true };
    const bad = await run({ validate: false, ...base, requestIdHeader: 'X Bad' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(UsageError);
    expect((bad as UsageError).problems.join('\n')).toMatch(/^--request-id-header: expected an HTTP header name/m);
    const clash = await run({ validate: false, ...base, header: ['x-request-id: mine'] }).catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(UsageError);
    expect((clash as UsageError).problems.join('\n')).toMatch(/--header: x-request-id is the per-request id header .*--no-request-id/);
    expect(server.bodies).toHaveLength(0);
  });
});

describe('request ids in simulate', () => {
  it('virtual records carry the ids the real run would send', async () => {
    const res = await simulate({ requests: 3, concurrency: 2, inputTokens: 16, outputTokens: 4, out: tmpDir(), quiet: true });
    const ids = res.records.map((r) => r.request_id);
    expect(new Set(ids).size).toBe(3);
    for (const r of res.records) expect(r.request_id).toMatch(new RegExp(`^[0-9a-f]{12}-${r.id}$`));
  });
});
