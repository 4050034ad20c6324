// Synthetic traffic: weighted class mixes and presets, shared prefixes, --max-model-len, --max-tokens, --extra-body and cache A/B.
import { describe, it, expect, afterEach } from 'vitest';
import { createWorkload } from '../src/dataset/workload.js';
import { parseMix, MIX_PRESETS } from '../src/dataset/mix.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { resolveRunConfig } from '../src/config/load.js';
import type { RunConfigInput } from '../src/config/schema.js';
import type { RequestSpec } from '../src/dataset/types.js';
import { createRng } from '../src/util/rng.js';
import { run } from '../src/run.js';
import { startEchoServer } from './workload-fixtures.js';
import type { ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

const tok = loadTokenizer('cl100k_base');
const config = (flags: RunConfigInput) => resolveRunConfig({ flags: flags as Record<string, unknown> }).config;
const specs = (flags: RunConfigInput, n: number): RequestSpec[] => {
  const w = createWorkload(config(flags), tok, createRng(1), n);
  return Array.from({ length: n }, (_, i) => w.next(i) as RequestSpec);
};

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('traffic mixes', () => {
  it('parses classes with relative weights and presets', () => {
    const m = parseMix('short: 60% in fixed:512 out fixed:256; rag: 25% in 4096 out 256; writing: 15% in 512 out lognormal:mean=2000,sd=500');
    expect(m.map((c) => [c.name, c.weight])).toEqual([['short', 0.6], ['rag', 0.25], ['writing', 0.15]]);
    expect(parseMix('a: 1; b: 3')[1].weight).toBe(0.75);
    expect(parseMix('preset:classic').map((c) => c.name)).toEqual(['short-short', 'long-short', 'short-long', 'long-long']);
    for (const p of Object.keys(MIX_PRESETS)) expect(() => parseMix(`preset:${p}`)).not.toThrow();
    expect(() => parseMix('preset:nope')).toThrow(/unknown preset "nope"/);
    expect(() => parseMix('short 60%')).toThrow(/expected NAME: WEIGHT%/);
    expect(() => parseMix('a: 50% in zipf:2')).toThrow(/class a: unknown distribution/);
    expect(() => resolveRunConfig({ flags: { mix: 'a: 50% up 3' } })).toThrow(/--mix: "a: 50% up 3"/);
  });

  it('carries per-class specs in the right proportions, each with its own exact lengths', () => {
    const all = specs({ mix: 'short: 60% in 32 out 8; rag: 25% in 300 out 16; writing: 15% in 32 out 64' }, 2000);
    const by = (c: string) => all.filter((s) => s.class === c);
    expect(by('short').length / 2000).toBeCloseTo(0.6, 1);
    expect(Math.abs(by('rag').length / 2000 - 0.25)).toBeLessThan(0.03);
    expect(Math.abs(by('writing').length / 2000 - 0.15)).toBeLessThan(0.03);
    expect(by('rag').every((s) => s.inputTokens === 300 && s.maxTokens === 16 && tok.count(s.messages[0].content) === 300)).toBe(true);
    expect(by('writing').every((s) => s.inputTokens === 32 && s.maxTokens === 64)).toBe(true);
  });

  it('per-class metrics appear in summary.by_class after a run', async () => {
    server = await startEchoServer(() => 'x');
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 40, concurrency: 8, mix: 'preset:classic', maxTokens: 8, out: tmpDir(), quiet: true });
    expect(Object.keys(res.summary.by_class ?? {}).sort()).toEqual(['long-long', 'long-short', 'short-long', 'short-short']);
    const total = Object.values(res.summary.by_class ?? {}).reduce((s, b) => s + b.requests.total, 0);
    expect(total).toBe(40);
    // --max-tokens overrides every class's output length.
    expect(server.bodies.every((b) => (b as { max_tokens: number }).max_tokens === 8)).toBe(true);
    expect(res.summary.run.workload).toMatchObject({ kind: 'synthetic', mix: expect.any(Array) });
  });
});

describe('prefixes, limits and request bodies', () => {
  it('gives G shared system prompts of N tokens first, then a unique nonce', () => {
    const all = specs({ prefixTokens: 200, prefixGroups: 3, inputTokens: 50, outputTokens: 4 }, 300);
    const prefixes = new Set(all.map((s) => s.messages[0].content));
    expect(prefixes.size).toBe(3);
    for (const p of prefixes) expect(tok.count(p)).toBe(200);
    expect(all.every((s) => s.messages[0].role === 'system' && s.inputTokens === 250 && tok.count(s.messages[1].content) === 50)).toBe(true);
    expect(new Set(all.map((s) => s.messages[1].content)).size).toBe(300);
    expect(all[0].messages[1].content).toMatch(/^\[[0-9a-f]{8}\] /);
    // Without cache busting, equal lengths give identical prompts.
    const same = specs({ cacheBust: false, inputTokens: 64, outputTokens: 4 }, 5);
    expect(new Set(same.map((s) => s.prompt)).size).toBe(1);
  });

  it('--max-model-len skips (and counts) sampled lengths that would overflow', () => {
    const c = config({ inputTokens: 'uniform:100,1000', outputTokens: 100, maxModelLen: 600 });
    const w = createWorkload(c, tok, createRng(2), 200);
    const all = Array.from({ length: 200 }, (_, i) => w.next(i) as RequestSpec);
    expect(all.every((s) => s.inputTokens + s.maxTokens <= 600)).toBe(true);
    const d = w.describe();
    expect(d.skipped_over_max_model_len as number).toBeGreaterThan(50);
    expect(() => createWorkload(config({ inputTokens: 1000, maxModelLen: 500 }), tok, createRng(1), 1)).toThrow(/--max-model-len: 500 is smaller/);
  });

  it('--extra-body is parsed and validated as a JSON object', () => {
    expect(config({ extraBody: '{"chat_template_kwargs":{"enable_thinking":false}}' }).extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false } });
    expect(() => config({ extraBody: '{oops' })).toThrow(/--extra-body: expected a JSON object/);
    expect(() => config({ extraBody: '[1]' })).toThrow(/--extra-body/);
  });

  it('conflicting workload options are usage errors', () => {
    expect(() => createWorkload(config({ dataset: 'a.jsonl', replay: 'b.jsonl' }), tok, createRng(1), 1)).toThrow(/--replay: cannot be combined/);
    expect(() => createWorkload(config({ prefixGroups: 4 }), tok, createRng(1), 1)).toThrow(/--prefix-groups: only applies/);
  });
});

describe('cache A/B', () => {
  it('sends the same prompts cold then warm, the warm pass only after the cold one finished', async () => {
    server = await startEchoServer(() => 'x', () => 1, 20);
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 24, concurrency: 5, cacheAb: true, inputTokens: 64, outputTokens: 2, prefixTokens: 100, out: tmpDir(), quiet: true });
    const cold = res.records.filter((r) => r.class === 'cold');
    const warm = res.records.filter((r) => r.class === 'warm');
    expect(cold).toHaveLength(12);
    expect(warm).toHaveLength(12);
    const coldEnd = Math.max(...cold.map((r) => r.sent_at_ms + (r.end_ms ?? 0)));
    expect(Math.min(...warm.map((r) => r.sent_at_ms))).toBeGreaterThanOrEqual(coldEnd);
    const bodies = server.bodies.map((b) => JSON.stringify((b as { messages: unknown }).messages));
    expect(new Set(bodies.slice(0, 12)).size).toBe(12);
    expect(new Set(bodies.slice(12))).toEqual(new Set(bodies.slice(0, 12)));
    expect(Object.keys(res.summary.by_class ?? {})).toEqual(['cold', 'warm']);
    expect(res.summary.run.workload).toMatchObject({ kind: 'cache-ab', prompts_per_pass: 12, cold_completed: 12 });
  });
});
