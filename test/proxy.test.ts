// HTTP_PROXY/NO_PROXY: a proxied target goes through the proxy (preflight and run, on undici); loopback never does.
import { describe, it, expect, afterEach, beforeEach, beforeAll, afterAll } from 'vitest';
import dns from 'node:dns';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { UsageError } from '../src/errors.js';
import { isLoopback } from '../src/backends/proxy.js';
import { startRawServer, sseBody, response, type RawServer } from './fixtures/raw-server.js';
import { tmpDir } from './helpers.js';

// Guard: no name is ever resolved (a request that bypassed the proxy would look up llm.invalid): fail it here.
const lookups: string[] = [];
const realLookup = dns.lookup;
beforeAll(() => {
  dns.lookup = ((host: string, opts: unknown, cb?: (err: Error) => void) => {
    // Loopback addresses resolve locally (net looks up even literal IPs); anything else would be a real query.
    if (isLoopback(host)) return (realLookup as (...a: unknown[]) => void)(host, opts, cb);
    lookups.push(host);
    const callback = (typeof opts === 'function' ? opts : cb) as (err: Error) => void;
    process.nextTick(() => callback(Object.assign(new Error(`test guard: no DNS lookup allowed (${host})`), { code: 'ENOTFOUND' })));
  }) as typeof dns.lookup;
});
afterAll(() => {
  dns.lookup = realLookup;
});

const servers: RawServer[] = [];
const saved = { ...process.env };
beforeEach(() => {
  for (const k of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY']) delete process.env[k];
});
afterEach(async () => {
  process.env = { ...saved };
  expect(lookups.splice(0)).toEqual([]);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback "proxy" that accepts CONNECT tunnels and answers every request inside them itself. */
async function proxyServer(): Promise<RawServer> {
  const s = await startRawServer((sock) => sock.write(response(200, sseBody(), { 'content-type': 'text/event-stream' })));
  servers.push(s);
  return s;
}

const base = { requests: 3, concurrency: 1, inputTokens: 8, outputTokens: 4, quiet: true } as const;
// .invalid never resolves (RFC 2606): a request that bypassed the proxy could not reach anything.
const REMOTE = 'http://llm.invalid:8000/v1';

describe('HTTP_PROXY', () => {
  it('sends the preflight and the run through the proxy, on undici, and says so in run.json (credentials redacted)', async () => {
    const proxy = await proxyServer();
    process.env.HTTP_PROXY = `http://tf-user:tf-s3cret@127.0.0.1:${proxy.port}`;
    const out = tmpDir();
    const res = await run({ validate: false, ...base, baseUrl: REMOTE, out });
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    const connects = proxy.heads.filter((h) => h.method === 'CONNECT');
    expect(connects.map((h) => h.target)).toContain('llm.invalid:8000');
    expect(connects[0].headers['proxy-authorization']).toBe(`Basic ${Buffer.from('tf-user:tf-s3cret').toString('base64')}`);
    expect(proxy.seen).toContain('GET /v1/models');
    expect(proxy.seen.filter((l) => l === 'POST /v1/chat/completions')).toHaveLength(3);
    const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(meta.transport).toBe('undici');
    expect(meta.proxy).toBe(`http://***:***@127.0.0.1:${proxy.port}/`);
    for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8'), f).not.toContain('tf-s3cret');
  });

  it('refuses --transport h1 when a proxy applies, naming the flag and the variable, and sends nothing', async () => {
    const proxy = await proxyServer();
    process.env.HTTP_PROXY = `http://127.0.0.1:${proxy.port}`;
    const err = await run({ validate: false, ...base, baseUrl: REMOTE, out: tmpDir(), transport: 'h1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(String((err as Error).message)).toMatch(/--transport h1: .*HTTP_PROXY applies to llm\.invalid:8000/);
    expect(proxy.seen).toEqual([]);
  });

  it('names the proxy, credentials redacted, when it cannot be reached', async () => {
    const gone = await proxyServer();
    await gone.close(); // nothing listens on its port any more
    process.env.HTTP_PROXY = `http://tf-user:tf-s3cret@127.0.0.1:${gone.port}`;
    const err = await run({ validate: false, ...base, baseUrl: REMOTE, out: tmpDir() }).catch((e: unknown) => e);
    expect(String((err as Error).message)).toMatch(new RegExp(`cannot reach .*through the proxy http://\\*\\*\\*:\\*\\*\\*@127\\.0\\.0\\.1:${gone.port}/ from HTTP_PROXY`));
    expect(String((err as Error).message)).not.toContain('tf-s3cret');
  });

  it('refuses a proxy variable that is not a URL', async () => {
    process.env.HTTP_PROXY = 'not a url';
    const err = await run({ validate: false, ...base, baseUrl: REMOTE, out: tmpDir() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(String((err as Error).message)).toMatch(/HTTP_PROXY: "not a url" is not a URL/);
  });

  it.each(['h1', 'undici', 'auto'] as const)('never proxies a loopback target, even with HTTP_PROXY set (transport %s)', async (transport) => {
    const proxy = await proxyServer();
    const target = await proxyServer(); // the same kind of server, reached directly
    process.env.HTTP_PROXY = `http://127.0.0.1:${proxy.port}`;
    process.env.HTTPS_PROXY = `http://127.0.0.1:${proxy.port}`;
    const out = tmpDir();
    const res = await run({ validate: false, ...base, baseUrl: target.baseUrl, out, transport });
    expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(proxy.seen).toEqual([]);
    expect(target.seen.filter((l) => l.startsWith('POST'))).toHaveLength(3);
    const meta = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(meta.proxy).toBeNull();
    expect(meta.transport).toBe(transport === 'undici' ? 'undici' : 'h1');
  });
});
