// The embedded engine's prefix cache in KV blocks on a trace: token-exact prompts from hash_ids hit per block, so the
// cached tokens approach the trace's ceiling with a big KV cache and fall with eviction in a small one; /metrics counts
// prefix-cache queries and hits in tokens, as vLLM does.
import { describe, it, expect, afterEach } from 'vitest';
import { loadTrace } from '../src/dataset/trace/registry.js';
import { cacheCeiling } from '../src/dataset/trace/ceiling.js';
import { createPromptSynth } from '../src/dataset/trace/prompts.js';
import { DEFAULT_TOKENIZER, loadTokenizer } from '../src/dataset/tokenizer.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { resolveEngine } from '../src/sim/engine/config.js';
import { createEngine } from '../src/sim/engine/engine.js';
import { blockHashesFromIds } from '../src/sim/engine/hash.js';
import { startSim } from '../src/sim/replicas.js';

// 74 requests of the FAST'25 conversation trace (license beside it): the first 14 conversations (requests sharing
// hash_ids[1]) with 3 or more turns of at most 12,000 tokens, in file order: 404,631 prompt tokens, ceiling 74%.
const SLICE = 'test/fixtures/traces/mooncake-chains-74.jsonl';
const TRACE_BLOCK = 512;
const MAX_PROMPT = 12_000;

const reqs = loadTrace(SLICE, 'mooncake', { blockSize: TRACE_BLOCK }).requests;
const ceiling = cacheCeiling(reqs, TRACE_BLOCK);
const synth = createPromptSynth({ tok: loadTokenizer(DEFAULT_TOKENIZER), blockSize: TRACE_BLOCK, seed: 1, traceId: 'mooncake-chains-74' });

let sim: SimServerHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Replay the slice one request at a time (no contention: only the cache size decides what hits). */
async function replay(numGpuBlocksOverride: number, router?: 'prefix-hash' | 'round-robin'): Promise<{ prompt: number; cached: number; queries: number; hits: number; replicas: Set<string> }> {
  const o = { numGpuBlocksOverride, maxModelLen: MAX_PROMPT + 16, timeScale: 2000 };
  sim = router ? await startSim({ ...o, replicas: 4, router }) : await startSimServer(o);
  let prompt = 0;
  let cached = 0;
  const replicas = new Set<string>();
  for (const r of reqs) {
    const text = synth.text({ index: r.index, inputLength: r.inputLength, hashIds: r.hashIds });
    const res = await fetch(`${sim.baseUrl}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: text, max_tokens: 1, ignore_eos: true }) });
    replicas.add(res.headers.get('x-served-by') ?? 'one');
    const u = ((await res.json()) as { usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } } }).usage;
    // Token-exact: the server counts exactly input_length prompt tokens.
    expect(u.prompt_tokens).toBe(r.inputLength);
    prompt += u.prompt_tokens;
    cached += u.prompt_tokens_details.cached_tokens;
  }
  if (router) return { prompt, cached, queries: NaN, hits: NaN, replicas };
  const metrics = await (await fetch(`${sim.baseUrl.replace(/\/v1$/, '')}/metrics`)).text();
  const counter = (name: string) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(metrics);
    expect(m, `${name} in /metrics`).not.toBeNull();
    return Number(m![1]);
  };
  return { prompt, cached, queries: counter('vllm:prefix_cache_queries_total'), hits: counter('vllm:prefix_cache_hits_total'), replicas };
}

describe('engine prefix cache on a trace slice', () => {
  it('a KV cache holding the whole slice serves close to the ceiling; /metrics counts queries and hits in tokens', async () => {
    expect(reqs.length).toBe(74);
    expect(Math.max(...reqs.map((r) => r.inputLength))).toBeLessThanOrEqual(MAX_PROMPT);
    expect(ceiling.ratio).toBeGreaterThan(0.5);
    // 40,000 blocks of 16 tokens (640,000): more than every prompt of the slice together (no eviction).
    const big = await replay(40_000);
    expect(big.prompt).toBe(ceiling.prompt_tokens);
    // Per 16-token block, chained: a request loses at most its last partial block and the one token computed to sample.
    expect(big.cached).toBeLessThanOrEqual(ceiling.cached_tokens);
    expect(big.cached / ceiling.cached_tokens).toBeGreaterThan(0.97);
    expect(big.queries).toBe(big.prompt);
    expect(big.hits).toBe(big.cached);
    console.log(`trace slice: ${reqs.length} requests, ${ceiling.prompt_tokens} prompt tokens, ceiling ${ceiling.cached_tokens} (${(ceiling.ratio! * 100).toFixed(1)}%), big KV cached ${big.cached}`);
  }, 60_000);

  it('a KV cache of one long prompt evicts: the hits fall well below the ceiling', async () => {
    // 800 blocks = 12,800 tokens: room for the request being served and little of the past.
    const small = await replay(800);
    expect(small.prompt).toBe(ceiling.prompt_tokens);
    expect(small.cached).toBeLessThan(0.8 * ceiling.cached_tokens);
    expect(small.queries).toBe(small.prompt);
    expect(small.hits).toBe(small.cached);
    console.log(`small KV (800 blocks) cached ${small.cached} = ${((small.cached / ceiling.cached_tokens) * 100).toFixed(1)}% of the ceiling`);
  }, 60_000);

  it('the engine alone (as simulate drives it), one request at a time: the same hits, by KV size', () => {
    const run = (numGpuBlocksOverride: number) => {
      const engine = createEngine(resolveEngine({ numGpuBlocksOverride, maxModelLen: MAX_PROMPT + 16 }));
      let cached = 0;
      for (const r of reqs) {
        const ids = synth.tokens({ index: r.index, inputLength: r.inputLength, hashIds: r.hashIds });
        expect(engine.add({ id: String(r.index), promptTokens: ids.length, outputTokens: 1, blockHashes: blockHashesFromIds(ids, engine.spec.blockSize) })).toBeUndefined();
        while (engine.hasWork()) for (const s of engine.step()?.started ?? []) cached += s.cachedTokens;
      }
      const c = engine.counters();
      expect(c.prefixHitsTokens).toBe(cached);
      expect(c.prefixQueriesTokens).toBe(ceiling.prompt_tokens);
      return cached;
    };
    const big = run(40_000);
    const small = run(800);
    expect(big / ceiling.cached_tokens).toBeGreaterThan(0.97);
    expect(big).toBeLessThanOrEqual(ceiling.cached_tokens);
    expect(small).toBeLessThan(0.8 * big);
    // Hits fall steadily as the cache shrinks between the two.
    const mid = run(1_600);
    expect(mid).toBeLessThan(big);
    expect(mid).toBeGreaterThan(small);
    console.log(`engine alone: cached ${big} (40,000 blocks), ${mid} (1,600), ${small} (800); ceiling ${ceiling.cached_tokens}`);
  });

  it('serve --replicas 4: prefix-hash (first 1024 tokens = two trace blocks) keeps a conversation on one replica, round-robin does not', async () => {
    const ph = await replay(40_000, 'prefix-hash');
    await sim!.close();
    const rr = await replay(40_000, 'round-robin');
    console.log(`4 replicas: prefix-hash cached ${ph.cached} (${((ph.cached / ceiling.cached_tokens) * 100).toFixed(1)}% of the ceiling), round-robin ${rr.cached} (${((rr.cached / ceiling.cached_tokens) * 100).toFixed(1)}%)`);
    expect(ph.cached / ceiling.cached_tokens).toBeGreaterThan(0.9);
    // ...while spreading the 14 conversations: hashing only block 0 (shared by all) would use one replica.
    expect(ph.replicas.size).toBeGreaterThanOrEqual(3);
    expect(rr.cached).toBeLessThan(0.75 * ph.cached);
  }, 60_000);
});
