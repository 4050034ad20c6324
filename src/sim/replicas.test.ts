// The sim's replicas behind a router: each replica its own prefix cache; prefix-hash keeps a prefix on one replica.
import { afterEach, describe, expect, it } from 'vitest';
import { startSim, bodyPrefixKey } from './replicas.js';
import type { SimServerHandle } from './server.js';
import { serveOptionsFromFlags } from '../cli/serve.js';

let sim: SimServerHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const system = (g: number) => `[system ${g}] ${'shared prefix text that is long enough to be cached in blocks. '.repeat(40)}`;
const body = (g: number, n: number) => ({
  messages: [
    { role: 'system', content: system(g) },
    { role: 'user', content: `question ${n}` },
  ],
  max_tokens: 2,
  ignore_eos: true,
  stream: false,
});

async function ask(base: string, b: unknown): Promise<{ servedBy: string | null; cached: number }> {
  const r = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
  const j = (await r.json()) as { usage: { prompt_tokens_details?: { cached_tokens: number } } };
  return { servedBy: r.headers.get('x-served-by'), cached: j.usage.prompt_tokens_details?.cached_tokens ?? 0 };
}

describe('sim replicas', () => {
  it('prefix-hash sends one system prompt to one replica, whose own cache then serves it', async () => {
    sim = await startSim({ replicas: 3, router: 'prefix-hash', timeScale: 50 });
    expect(sim.description).toMatch(/^3x .*router prefix-hash/);
    const first = await ask(sim.baseUrl, body(1, 0));
    expect(first.servedBy).toMatch(/^replica-[0-2]$/);
    const again = await ask(sim.baseUrl, body(1, 1));
    expect(again.servedBy).toBe(first.servedBy);
    expect(again.cached).toBeGreaterThan(0);
    // GET goes to a replica too: the model list is the sim's.
    const models = (await (await fetch(`${sim.baseUrl}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.length).toBeGreaterThan(0);
    expect((await fetch(`${sim.baseUrl.replace(/\/v1$/, '')}/metrics`)).status).toBe(404);
  });

  it('round-robin visits every replica in turn; a replica that never saw a prefix has nothing cached', async () => {
    sim = await startSim({ replicas: 2, router: 'round-robin', timeScale: 50 });
    const a = await ask(sim.baseUrl, body(2, 0));
    const b = await ask(sim.baseUrl, body(2, 1));
    const c = await ask(sim.baseUrl, body(2, 2));
    expect(a.servedBy).not.toBe(b.servedBy);
    expect(c.servedBy).toBe(a.servedBy);
    expect(b.cached).toBe(0);
    expect(c.cached).toBeGreaterThan(0);
  });

  it('serve flags: --replicas and --router are parsed and checked', () => {
    expect(serveOptionsFromFlags({ replicas: '4', router: 'prefix-hash' })).toMatchObject({ replicas: 4, router: 'prefix-hash' });
    expect(() => serveOptionsFromFlags({ replicas: '0' })).toThrow(/--replicas/);
    expect(() => serveOptionsFromFlags({ router: 'sticky' })).toThrow(/--router/);
    expect(() => serveOptionsFromFlags({ router: 'prefix-hash' })).toThrow(/--router: only applies with --replicas 2 or more/);
  });

  it('the prefix key is the start of the first message, or of the prompt', () => {
    expect(bodyPrefixKey(JSON.stringify(body(3, 0)))).toBe(system(3).slice(0, 256));
    expect(bodyPrefixKey(JSON.stringify({ prompt: 'abc' }))).toBe('abc');
    expect(bodyPrefixKey('not json')).toBe('not json');
  });
});
