// Model buckets and instance matching: --route by-length / by-class and a replay line's `instance`, over two loopback servers.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

const answer: Script = { steps: [{ at: 0, write: chatChunk({ content: 'hi' }) }, { at: 2, write: chatChunk({ content: ' there' }) + usageChunk(8, 2) + DONE }] };
let a: ScriptServer;
let b: ScriptServer;
beforeAll(async () => {
  a = await startScriptServer(() => answer, 'model-a');
  b = await startScriptServer(() => answer, 'model-b');
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

const promptOf = (body: unknown): string => ((body as { messages: { content: string }[] }).messages.at(-1)?.content ?? '');
const runJson = (out: string) => JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));

describe('model buckets (--route by-length, by-class)', () => {
  it('by-length sends short prompts to one endpoint and long ones to the other', async () => {
    const dir = tmpDir();
    const data = join(dir, 'data.jsonl');
    const short = 'short question';
    const long = 'long document '.repeat(300);
    writeFileSync(data, [short, long, short, long, short, long].map((p) => JSON.stringify({ prompt: p })).join('\n') + '\n');
    const [na, nb] = [a.bodies.length, b.bodies.length];
    const out = join(dir, 'out');
    const res = await run({ validate: false, dataset: data, requests: 6, concurrency: 2, outputTokens: 2, quiet: true, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, route: 'by-length:0-256=t1,256-=t2', out });
    expect(res.records.every((r) => r.status === 'ok')).toBe(true);
    const toA = a.bodies.slice(na).map(promptOf);
    const toB = b.bodies.slice(nb).map(promptOf);
    expect(toA.length).toBe(3);
    expect(toB.length).toBe(3);
    expect(toA.every((p) => p.includes('short question'))).toBe(true);
    expect(toB.every((p) => p.includes('long document'))).toBe(true);
    expect(runJson(out).routing).toEqual({ route: 'by-length:0-256=t1,256-=t2', placed: { instance: 0, rule: 6, policy: 0 }, by_rule: { t1: 3, t2: 3 } });
    expect(Object.keys(res.summary.by_endpoint ?? {})).toEqual(['t1', 't2']);
  });

  it('by-class sends each dataset class to the endpoint it names; other classes go round-robin', async () => {
    const dir = tmpDir();
    const data = join(dir, 'data.jsonl');
    const rows = [
      { prompt: 'rag one', class: 'rag' },
      { prompt: 'chat one', class: 'chat' },
      { prompt: 'rag two', class: 'rag' },
      { prompt: 'other one', class: 'other' },
    ];
    writeFileSync(data, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const nb = b.bodies.length;
    const out = join(dir, 'out');
    await run({ validate: false, dataset: data, requests: 4, concurrency: 1, outputTokens: 2, quiet: true, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, route: 'by-class:rag=t2,chat=t1', out });
    expect(b.bodies.slice(nb).map(promptOf).filter((p) => p.includes('rag'))).toHaveLength(2);
    const r = runJson(out).routing;
    expect(r.placed).toEqual({ instance: 0, rule: 3, policy: 1 });
    expect(r.by_rule).toEqual({ t1: 1, t2: 2 });
  });

  it('a rule naming no endpoint is exit 2 before anything is sent', async () => {
    const na = a.bodies.length;
    await expect(run({ requests: 1, inputTokens: 8, outputTokens: 2, quiet: true, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, route: 'by-length:0-8k=t1,8k-=t3', out: tmpDir() })).rejects.toThrow(
      /--route: names no endpoint of the run: t3 \(the endpoints are t1, t2\)/,
    );
    await expect(run({ requests: 1, inputTokens: 8, outputTokens: 2, quiet: true, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, route: 'by-length:0-8k', out: tmpDir() })).rejects.toThrow(/--route: by-length: "0-8k"/);
    expect(a.bodies.length).toBe(na);
  });
});

describe('instance matching in replay', () => {
  it.each(['tokenflood', 'mooncake'])('a %s trace line naming its instance reaches that endpoint; run.json counts hits per instance', async (format) => {
    const dir = tmpDir();
    const trace = join(dir, 'trace.jsonl');
    const inst = ['t2', 't2', 't1', 't2', 'gone', undefined];
    const line = (i: number) =>
      format === 'mooncake'
        ? { timestamp: i * 5, input_length: 16, output_length: 2, ...(inst[i] ? { instance: inst[i] } : {}) }
        : { timestamp: i * 5, input_tokens: 16, output_tokens: 2, ...(inst[i] ? { instance: inst[i] } : {}) };
    writeFileSync(trace, inst.map((_, i) => JSON.stringify(line(i))).join('\n') + '\n');
    const out = join(dir, 'out');
    const res = await run({ validate: false, replay: trace, replayFormat: format, quiet: true, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, out });
    expect(res.records).toHaveLength(6);
    const named = res.records.filter((r) => r.instance === 't1' || r.instance === 't2');
    expect(named).toHaveLength(4);
    for (const r of named) expect(r.endpoint).toBe(r.instance);
    expect(res.records.filter((r) => r.instance === 'gone')).toHaveLength(1);
    const r = runJson(out).routing;
    expect(r.instances).toEqual({ t1: 1, t2: 3 });
    expect(r.unknown_instances).toEqual({ gone: 1 });
    expect(r.placed).toEqual({ instance: 4, rule: 0, policy: 2 });
  });

  it('a bad instance value names the line and the field', async () => {
    const dir = tmpDir();
    const trace = join(dir, 'trace.jsonl');
    writeFileSync(trace, JSON.stringify({ timestamp: 0, input_tokens: 4, instance: 'a b' }) + '\n');
    await expect(run({ replay: trace, replayFormat: 'tokenflood', quiet: true, baseUrl: [a.baseUrl, b.baseUrl] as unknown as string, out: tmpDir() })).rejects.toThrow(/trace\.jsonl:1.*instance/);
  });
});
