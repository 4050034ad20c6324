// The target URL and the preflight against real loopback servers: query strings, fragments, a /models that never ends, bad headers.
import { describe, it, expect, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getClient } from '../src/backends/http-get.js';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { preflight } from '../src/target.js';
import { TokenfloodError } from '../src/errors.js';
import { startHostileServer, sseChunk, type HostileServer } from './fixtures/hostile-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
let server: HostileServer | undefined;
const timers = new Set<NodeJS.Timeout>();
afterEach(async () => {
  for (const t of timers) clearInterval(t);
  timers.clear();
  await server?.close();
  server = undefined;
});

/** An OpenAI-like server: GET lists one model, POST streams one token. */
const okServer = () =>
  startHostileServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'm1' }] }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(sseChunk('hi') + 'data: [DONE]\n\n');
  });

/** GET /models sends its headers and then one byte every 50 ms, forever. */
const dribbleServer = () =>
  startHostileServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":[');
    const t = setInterval(() => res.write(' '), 50);
    timers.add(t);
    res.on('close', () => clearInterval(t));
  });

/** Rejects after `ms` so a hang shows up as a clear failure, not the test timeout. */
const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms))]);

describe.each(['h1', 'undici'] as const)('base URL with a query string (transport %s)', (transport) => {
  it('posts to {path}/chat/completions?{query} and lists {path}/models?{query} (Azure OpenAI style)', async () => {
    server = await okServer();
    const res = await run({ validate: false, baseUrl: `${server.origin}/openai/deployments/x?api-version=2024-06-01`, requests: 2, concurrency: 1, inputTokens: 8, outputTokens: 2, out: tmpDir(), quiet: true, transport, serverMetrics: false });
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(server.seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /openai/deployments/x/models?api-version=2024-06-01',
      'GET /openai/deployments/x/models?api-version=2024-06-01', // prewarm: one connection for one stream
      'POST /openai/deployments/x/chat/completions?api-version=2024-06-01',
      'POST /openai/deployments/x/chat/completions?api-version=2024-06-01',
    ]);
  });

  it('a trailing slash before the query is dropped', async () => {
    server = await okServer();
    await run({ validate: false, baseUrl: `${server.origin}/v1/?api-version=1`, requests: 1, concurrency: 1, inputTokens: 8, outputTokens: 2, out: tmpDir(), quiet: true, transport, endpoint: 'completions', serverMetrics: false });
    expect(server.seen.map((s) => s.url)).toEqual(['/v1/models?api-version=1', '/v1/models?api-version=1', '/v1/completions?api-version=1']); // preflight, prewarm, the request
  });
});

describe('base URL with a fragment', () => {
  it('is refused naming --base-url, exit 2, nothing sent', async () => {
    server = await okServer();
    const c = capture();
    const out = join(tmpDir(), 'run');
    expect(await main(['run', '--no-validate', '--base-url', `${server.origin}/v1#section`, '--requests', '1', '--out', out, '--quiet'], c.io)).toBe(2);
    expect(c.err).toMatch(/--base-url: a fragment \("#\.\.\."\) is never sent/);
    expect(server.seen).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });
});

describe('preflight against a /models body that never ends', () => {
  it.each(['h1', 'undici'] as const)('gives up at its deadline (headers and body together), as an unreachable server (transport %s)', async (transport) => {
    server = await dribbleServer();
    const agent = getClient({ transport, proxy: null, connections: 1 });
    const t0 = performance.now();
    const err = await within(preflight(`${server.origin}/v1`, {}, undefined, agent, { deadlineMs: 1000 }), 10_000).catch((e: unknown) => e);
    const ms = performance.now() - t0;
    await agent.close(); // drops the connection of a request that never ends
    expect(err).toBeInstanceOf(TokenfloodError);
    expect((err as TokenfloodError).code).toBe('E_UNREACHABLE');
    expect((err as Error).message).toMatch(/did not answer GET \/models within 1 s/);
    // The deadline fired, not some other limit: after ~1 s (timers may fire ~1 ms early), well before 10 s.
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(8_000);
  });

  it('an abort (Ctrl-C) during the preflight stops the run at once: E_INTERRUPTED, nothing sent, no files', async () => {
    server = await dribbleServer();
    const ac = new AbortController();
    const out = join(tmpDir(), 'run');
    const done = run({ validate: false, baseUrl: `${server.origin}/v1`, requests: 5, concurrency: 1, out, quiet: true }, { signal: ac.signal }).catch((e: unknown) => e);
    while (server.seen.length === 0) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    const err = await within(done, 5_000);
    expect((err as TokenfloodError).code).toBe('E_INTERRUPTED');
    expect((err as Error).message).toMatch(/interrupted during the preflight/);
    expect(server.seen.map((s) => s.method)).toEqual(['GET']);
    expect(existsSync(out)).toBe(false);
  });

  it.skipIf(!existsSync(CLI))('the real CLI: the first Ctrl-C during the preflight exits 130 (needs `npm run build`)', async () => {
    server = await dribbleServer();
    const child = spawn(process.execPath, [CLI, 'run', '--no-validate', '--base-url', `${server.origin}/v1`, '--requests', '1', '--out', join(tmpDir(), 'run')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += String(c)));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const until = Date.now() + 20_000;
    while (server.seen.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(server.seen.length).toBe(1);
    child.kill('SIGINT');
    const code = await within(exited, 10_000).catch((e: Error) => (child.kill('SIGKILL'), e.message));
    expect(code, err).toBe(130);
    expect(err).toMatch(/interrupted during the preflight/);
  });
});

describe('invalid --header values and names', () => {
  const cases: [string, string[], (dir: string) => string[], RegExp][] = [
    ['CR in a --header value', [], () => ['--header', 'X-Key: secretvalue\rInjected: 1'], /--header: the value of header "X-Key" contains CR \(U\+000D\)/],
    ['LF in a --header value', [], () => ['--header', 'X-Key: secretvalue\nInjected: 1'], /--header: the value of header "X-Key" contains LF/],
    ['NUL in a --header value', [], () => ['--header', 'X-Key: secretvalue\0'], /--header: the value of header "X-Key" contains NUL/],
    ['a space in a --header name', [], () => ['--header', 'X Key: secretvalue'], /--header: header name "X Key" is not a valid HTTP token/],
    ['LF in a config file header value', [], (dir) => {
      const f = join(dir, 'c.yaml');
      writeFileSync(f, 'header:\n  X-Key: "secretvalue\\nInjected: 1"\n');
      return ['--config', f];
    }, /c\.yaml: header: the value of header "X-Key" contains LF/],
    ['a bad name in a config file header key', [], (dir) => {
      const f = join(dir, 'c.yaml');
      writeFileSync(f, 'header:\n  "X(Key)": secretvalue\n');
      return ['--config', f];
    }, /c\.yaml: header: header name "X\(Key\)" is not a valid HTTP token/],
  ];
  for (const [name, , args, re] of cases)
    it(`${name}: exit 2 naming it, value not shown, nothing sent`, async () => {
      server = await okServer();
      const c = capture();
      const out = join(tmpDir(), 'run');
      expect(await main(['run', '--no-validate', '--base-url', `${server.origin}/v1`, '--requests', '1', '--out', out, '--quiet', ...args(tmpDir())], c.io)).toBe(2);
      expect(c.err).toMatch(re);
      expect(c.err).not.toContain('secretvalue');
      expect(c.err.trim().split('\n')).toHaveLength(1);
      expect(server.seen).toEqual([]);
      expect(existsSync(out)).toBe(false);
    });
});
