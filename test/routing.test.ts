// Many endpoints and routing: two loopback servers as two --base-url's, --targets, --models, breakdowns, bad input, cache locality.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import type { RunConfigInput } from '../src/config/schema.js';
import type { Summary } from '../src/metrics/summary.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

const answer: Script = { steps: [{ at: 0, write: chatChunk({ content: 'hi' }) }, { at: 2, write: chatChunk({ content: ' there' }) + usageChunk(8, 2) + DONE }] };
const SECRET = 'sk-target-two-secret-0123456789';

let a: ScriptServer;
let b: ScriptServer;
let browser: Browser | undefined;
beforeAll(async () => {
  a = await startScriptServer(() => answer, 'model-a');
  b = await startScriptServer(() => answer, 'model-b');
  if (hasChromium) browser = await launch();
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await browser?.close();
});

const summaryOf = (out: string): Summary => JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
const base = { requests: 8, concurrency: 2, inputTokens: 8, outputTokens: 2, quiet: true };
const header = (raw: string[], name: string) => {
  const i = raw.findIndex((x, j) => j % 2 === 0 && x.toLowerCase() === name);
  return i < 0 ? undefined : raw[i + 1];
};

describe.each(['h1', 'undici'] as const)('two endpoints (transport %s)', (transport) => {
  it('two --base-url servers both receive traffic, round-robin; records and summary carry the endpoint', async () => {
    const out = tmpDir();
    const [na, nb] = [a.bodies.length, b.bodies.length];
    const res = await run({ validate: false, ...base, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, transport, out });
    expect(a.bodies.length - na).toBe(4);
    expect(b.bodies.length - nb).toBe(4);
    expect(res.records.every((r) => r.status === 'ok')).toBe(true);
    expect(res.records.filter((r) => r.endpoint === 't1')).toHaveLength(4);
    expect(res.records.filter((r) => r.endpoint === 't2')).toHaveLength(4);
    // Each endpoint's own preflight named its model, and its requests asked for it.
    expect(new Set(res.records.filter((r) => r.endpoint === 't2').map((r) => r.model))).toEqual(new Set(['model-b']));
    expect((b.bodies.at(-1) as { model: string }).model).toBe('model-b');
    const s = summaryOf(out);
    expect(Object.keys(s.by_endpoint ?? {})).toEqual(['t1', 't2']);
    expect(s.by_endpoint!.t1.requests.ok).toBe(4);
    expect(s.by_endpoint!.t2.ttft_ms.count).toBe(4);
    expect(s.by_model && Object.keys(s.by_model)).toEqual(['model-a', 'model-b']);
    const run_ = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(run_.targets.map((t: { name: string; url: string }) => [t.name, t.url])).toEqual([['t1', a.baseUrl], ['t2', b.baseUrl]]);
  });

  it('a --targets file: weights, per-target key and headers (sent, never written), weighted route', async () => {
    const dir = tmpDir();
    const file = join(dir, 'targets.yaml');
    writeFileSync(file, `- { name: big, url: "${a.baseUrl}", weight: 3 }\n- name: small\n  url: "${b.baseUrl}"\n  weight: 1\n  api_key: ${SECRET}\n  headers: { X-Pool: two }\n`);
    const out = join(dir, 'out');
    const [na, nb] = [a.bodies.length, b.bodies.length];
    const res = await run({ validate: false, ...base, targets: file, route: 'weighted', transport, out });
    expect([a.bodies.length - na, b.bodies.length - nb]).toEqual([6, 2]);
    expect(header(b.rawHeaders.at(-1)!, 'authorization')).toBe(`Bearer ${SECRET}`);
    expect(header(b.rawHeaders.at(-1)!, 'x-pool')).toBe('two');
    expect(header(a.rawHeaders.at(-1)!, 'authorization')).toBeUndefined();
    expect(new Set(res.records.map((r) => r.endpoint))).toEqual(new Set(['big', 'small']));
    for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8')).not.toContain(SECRET);
  });
});

describe('least-in-flight and worker threads', () => {
  it('least-in-flight sends more to the endpoint that answers sooner', async () => {
    const slow = await startScriptServer(() => ({ headersAt: 400, steps: answer.steps }), 'model-a');
    try {
      const n = a.bodies.length;
      const res = await run({ validate: false, ...base, requests: 24, concurrency: 4, baseUrl: [a.baseUrl, slow.baseUrl] as unknown as string, route: 'least-in-flight', out: tmpDir() });
      expect(res.records.every((r) => r.status === 'ok')).toBe(true);
      // The slow one holds its requests ~400 ms each; the fast one frees its slots at once and gets the rest.
      expect(a.bodies.length - n).toBeGreaterThan(slow.bodies.length);
      expect(slow.bodies.length).toBeGreaterThan(0);
    } finally {
      await slow.close();
    }
  });

  it('with --workers 2 each endpoint gets its own sender threads', async () => {
    const [na, nb] = [a.bodies.length, b.bodies.length];
    const res = await run({ validate: false, ...base, requests: 4, workers: 2, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, out: tmpDir() });
    expect([a.bodies.length - na, b.bodies.length - nb]).toEqual([2, 2]);
    expect(res.records.map((r) => r.endpoint).sort()).toEqual(['t1', 't1', 't2', 't2']);
  });
});

describe('--models', () => {
  it('spreads one run over models behind one endpoint; each record and body carries its model', async () => {
    const out = tmpDir();
    const n = a.bodies.length;
    const res = await run({ validate: false, ...base, requests: 60, concurrency: 4, baseUrl: a.baseUrl, models: 'a:70%,b:30%', out });
    const sent = a.bodies.slice(n).map((x) => (x as { model: string }).model);
    const records = res.records.filter((r) => r.attempt === 1);
    expect(records.map((r) => r.model).sort()).toEqual(sent.sort());
    const share = sent.filter((m) => m === 'a').length / sent.length;
    expect(share).toBeGreaterThan(0.5);
    expect(share).toBeLessThan(0.9);
    const s = summaryOf(out);
    expect(Object.keys(s.by_model ?? {})).toEqual(['a', 'b']);
    expect(s.by_model!.a.requests.total + s.by_model!.b.requests.total).toBe(60);
    expect(s.by_endpoint).toBeUndefined();
  });
});

describe('bad routing input: exit 2, one message naming the flag or field, nothing sent', () => {
  const dir = tmpDir();
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const cases: [string, () => string[], RegExp][] = [
    ['a target with a negative weight', () => ['--targets', file('w.yaml', `- url: http://127.0.0.1:9/v1\n- url: http://127.0.0.1:9/v1\n  weight: -2\n`)], /--targets: .*w\.yaml: targets\[1\]\.weight: expected a positive number/],
    ['a target weight of 1e308 (issue 25 item 24)', () => ['--targets', file('big.yaml', `- url: http://127.0.0.1:9/v1\n- url: http://127.0.0.1:9/v1\n  weight: 1e308\n`), '--route', 'prefix-hash'], /--targets: .*big\.yaml: targets\[1\]\.weight: expected at most 1000000/],
    ['two target weights of 1.7e308', () => ['--targets', file('big2.yaml', `- { url: "http://127.0.0.1:9/v1", weight: 1.7e308 }\n- { url: "http://127.0.0.1:9/v1", weight: 1.7e308 }\n`), '--route', 'weighted'], /targets\[0\]\.weight: expected at most 1000000[^]*targets\[1\]\.weight: expected at most/],
    ['a model weight of 1e308', () => ['--base-url', a.baseUrl, '--models', 'a:1e308,b:1'], /--models: "a:1e308": the weight must be at most 1000000/],
    ['a target without a url', () => ['--targets', file('u.yaml', `- name: x\n`)], /--targets: .*u\.yaml: targets\[0\]\.url: expected a URL/],
    ['an unknown target field', () => ['--targets', file('k.yaml', `- url: http://127.0.0.1:9/v1\n  apikey: x\n`)], /--targets: .*k\.yaml: targets\[0\]: .*apikey/],
    ['a missing targets file', () => ['--targets', join(dir, 'nope.yaml')], /--targets: .*nope\.yaml: cannot read/],
    ['two targets with one name', () => ['--targets', file('n.yaml', `- { url: "http://127.0.0.1:9/v1", name: x }\n- { url: "http://127.0.0.1:9/v1", name: x }\n`)], /name "x" is used twice/],
    ['a bad second --base-url', () => ['--base-url', a.baseUrl, '--base-url', 'localhost:9'], /--base-url \(#2\): /],
    ['--route with one endpoint', () => ['--base-url', a.baseUrl, '--route', 'prefix-hash'], /--route: only applies with several endpoints/],
    ['an unknown route', () => ['--base-url', a.baseUrl, '--base-url', b.baseUrl, '--route', 'sticky'], /--route: unknown kind "sticky" \(valid: round-robin, random, least-in-flight, weighted, prefix-hash, session, by-length:LO-HI=TARGET,..., by-class\[:CLASS=TARGET,...\]\)/],
    ['a model weight of zero', () => ['--base-url', a.baseUrl, '--models', 'a:0%,b:100%'], /--models: "a:0%": the weight must be a positive/],
    ['an unreachable second endpoint', () => ['--base-url', a.baseUrl, '--base-url', 'http://127.0.0.1:1/v1'], /target t2: cannot reach the server at http:\/\/127\.0\.0\.1:1\/v1/],
    ['--sim-router without --sim-replicas', () => ['--sim-router', 'prefix-hash'], /--sim-router: only applies with --sim-replicas 2 or more/],
    ['--targets with --base-url', () => ['--base-url', a.baseUrl, '--targets', file('ok.yaml', `- url: "${b.baseUrl}"\n`)], /--targets: lists the endpoints; drop --base-url/],
  ];
  for (const [name, argv, re] of cases)
    it(name, async () => {
      const before = a.bodies.length + b.bodies.length;
      const c = capture();
      const code = await main(['run', '--no-validate', ...argv(), '--quiet', '--requests', '1'], c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toMatch(re);
      expect(c.err).not.toMatch(/internal error|at .*\.ts:\d+/);
      expect(a.bodies.length + b.bodies.length).toBe(before);
    });
});

describe('report.html and terminal with several endpoints', () => {
  it('has the per-endpoint table and TTFT chart, and renders without errors', async () => {
    const out = tmpDir();
    await run({ validate: false, ...base, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, out });
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('By endpoint');
    expect(html).toContain('id="c-endpoint-ttft"');
    const c = capture();
    expect(await main(['report', out], c.io)).toBe(0);
    expect(c.out).toMatch(/by endpoint:\n\s*endpoint\s+ok.*\n.*\n\s*t1\s+4 .*\n\s*t2\s+4 /);
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, join(out, 'report.html'));
    expect(page.errors).toEqual([]);
    expect(page.network).toEqual([]);
    expect(page.text).toContain('By endpoint');
    expect(page.drawn).toBe(page.canvases);
  });
});

describe('cache locality over the embedded server with 4 replicas', () => {
  const go = async (router: 'prefix-hash' | 'round-robin') => {
    const out = tmpDir();
    await run({ validate: false, requests: 64, concurrency: 8, inputTokens: 32, outputTokens: 4, prefixTokens: 1024, prefixGroups: 8, simReplicas: 4, simRouter: router, simTimeScale: 50, out, quiet: true } as RunConfigInput);
    return summaryOf(out);
  };
  it('prefix-hash keeps each group on one replica (locality near 100%) and caches more than round-robin', async () => {
    const ph = await go('prefix-hash');
    const rr = await go('round-robin');
    expect(ph.requests.ok).toBe(64);
    expect(ph.cache_locality).toBeGreaterThanOrEqual(0.95);
    for (const g of Object.values(ph.prefix_groups!.by_group)) expect(Object.keys(g.endpoints)).toHaveLength(1);
    expect(Object.keys(ph.prefix_groups!.by_group)).toHaveLength(8);
    // A hash need not use every replica for 8 prefixes, but it spreads them.
    expect(ph.prefix_groups!.units).toBeGreaterThan(1);
    expect(rr.cache_locality!).toBeLessThan(ph.cache_locality!);
    expect(rr.prefix_groups!.cached_token_rate!).toBeLessThan(ph.prefix_groups!.cached_token_rate!);
    // Round-robin spreads groups over the replicas.
    expect(new Set(Object.values(rr.prefix_groups!.by_group).flatMap((g) => Object.keys(g.endpoints))).size).toBe(4);
  }, 60_000);
});
