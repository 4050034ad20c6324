// serve --replicas N --shared-prefix-cache: a prefix computed on one replica is a hit on the others (round-robin router).
import { afterEach, describe, expect, it } from 'vitest';
import { startSim } from './replicas.js';
import type { SimServerHandle } from './server.js';
import { resolveEngine } from './engine/config.js';
import { createEngine } from './engine/engine.js';
import { createSharedPrefixStore } from './engine/shared-prefix.js';

let sim: SimServerHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const system = (g: number) => `[system ${g}] ${'a long shared system prompt that several requests start with, cached in blocks. '.repeat(60)}`;
const body = (g: number, n: number) => ({
  messages: [{ role: 'system', content: system(g) }, { role: 'user', content: `question ${n}` }],
  max_tokens: 2,
  ignore_eos: true,
  stream: false,
});

async function ask(base: string, b: unknown): Promise<{ servedBy: string | null; cached: number; prompt: number }> {
  const r = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
  const j = (await r.json()) as { usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens: number } } };
  return { servedBy: r.headers.get('x-served-by'), cached: j.usage.prompt_tokens_details?.cached_tokens ?? 0, prompt: j.usage.prompt_tokens };
}

/** Six system prompts, each asked four times in a row through a 4-replica round-robin router: cached share of prompt tokens. */
async function cachedShare(sharedPrefixCache: boolean): Promise<{ share: number; hitRequests: number; replicas: Set<string> }> {
  sim = await startSim({ replicas: 4, router: 'round-robin', timeScale: 50, sharedPrefixCache });
  let cached = 0, prompt = 0, hitRequests = 0;
  const replicas = new Set<string>();
  for (let g = 0; g < 6; g++)
    for (let n = 0; n < 4; n++) {
      const r = await ask(sim.baseUrl, body(g, n));
      cached += r.cached;
      prompt += r.prompt;
      if (r.cached > 0) hitRequests++;
      replicas.add(r.servedBy!);
    }
  await sim.close();
  sim = undefined;
  return { share: cached / prompt, hitRequests, replicas };
}

describe('--shared-prefix-cache', () => {
  it('round-robin spreads each prefix over every replica: no hits with per-replica caches, 3 of 4 with the shared one', async () => {
    const own = await cachedShare(false);
    const shared = await cachedShare(true);
    expect(own.replicas.size).toBe(4);
    expect(own.hitRequests).toBe(0);
    expect(shared.hitRequests).toBe(18);
    expect(shared.share).toBeGreaterThan(0.7);
  });

  it('a hit fetched from the store costs transfer time: latency + bytes / bandwidth in the admitting step', () => {
    const spec = resolveEngine({ asyncScheduling: false });
    const store = createSharedPrefixStore({ capacityBlocks: 10_000, bytesPerSec: 25e9, latencyMs: 0.5 });
    const a = createEngine(spec, { sharedPrefix: store });
    const b = createEngine(spec, { sharedPrefix: store });
    const hashes = Array.from({ length: 125 }, (_, i) => 1000 + i); // 2,000 tokens in 16-token blocks
    a.add({ id: 'x', promptTokens: 2010, outputTokens: 1, blockHashes: hashes });
    const cold = a.step()!;
    b.add({ id: 'y', promptTokens: 2010, outputTokens: 1, blockHashes: hashes });
    const warm = b.step()!;
    expect(warm.started[0].cachedTokens).toBe(2000);
    const c = b.counters();
    expect(c.sharedHitsTokens).toBe(2000);
    expect(c.sharedTransferBytes).toBe(2000 * spec.kvBytesPerTokenPerGpu);
    // 2,000 tokens · 128 KiB = 262 MB at 25 GB/s = 10.5 ms + 0.5 ms, on top of a 10-token prefill.
    const fetchMs = 0.5 + ((2000 * spec.kvBytesPerTokenPerGpu) / 25e9) * 1000;
    expect(warm.durationMs - warm.cost.totalMs).toBeCloseTo(fetchMs, 6);
    expect(cold.durationMs).toBe(cold.cost.totalMs);
  });

  it('needs --replicas N >= 2', () => {
    expect(() => startSim({ sharedPrefixCache: true })).toThrow(/--shared-prefix-cache: .*--replicas N with N >= 2/);
  });
});
