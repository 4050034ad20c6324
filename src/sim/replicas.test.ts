// The sim's replicas behind a router: each replica its own prefix cache; prefix-hash keeps a prefix on one replica.
import { afterEach, describe, expect, it } from 'vitest';
import { startSim } from './replicas.js';
import { firstText, prefixTokensKey, sessionKey } from './router-keys.js';
import { DEFAULT_TOKENIZER, loadTokenizer } from '../dataset/tokenizer.js';
import { createPromptSynth } from '../dataset/trace/prompts.js';
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

  it('session keeps a session on one replica by its header; its later turns hit that replica\'s cache', async () => {
    sim = await startSim({ replicas: 4, router: 'session', sessionHeader: 'x-conv', timeScale: 50 });
    expect(sim.description).toMatch(/router session \(header x-conv\)/);
    const turn = (s: number, n: number) =>
      fetch(`${sim!.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-conv': `s${s}` }, body: JSON.stringify(body(10 + s, n)) }).then(async (r) => ({ servedBy: r.headers.get('x-served-by'), cached: ((await r.json()) as { usage: { prompt_tokens_details: { cached_tokens: number } } }).usage.prompt_tokens_details.cached_tokens }));
    const homes = new Set<string>();
    for (let s = 0; s < 12; s++) {
      const first = await turn(s, 0);
      const second = await turn(s, 1);
      expect(second.servedBy).toBe(first.servedBy);
      expect(second.cached).toBeGreaterThan(0);
      homes.add(first.servedBy!);
    }
    expect(homes.size).toBeGreaterThan(1);
    // No header: round-robin.
    const a = await ask(sim.baseUrl, body(1, 0));
    const b = await ask(sim.baseUrl, body(1, 1));
    expect(a.servedBy).not.toBe(b.servedBy);
  });

  it('prefix-hash hashes tokens past a first block shared by every request (a trace), so requests spread', async () => {
    sim = await startSim({ replicas: 4, router: 'prefix-hash', routerPrefixTokens: 64, timeScale: 50 });
    // Token-exact trace prompts of 32-token blocks: block 0 shared by all (as Mooncake's id 0), then each its own.
    const synth = createPromptSynth({ tok: loadTokenizer(DEFAULT_TOKENIZER), blockSize: 32, seed: 1, traceId: 'route-test' });
    const used = new Set<string>();
    for (let i = 0; i < 24; i++) {
      const content = synth.text({ index: i, inputLength: 96, hashIds: [0, 100 + i, 200 + i] });
      const r = await ask(sim.baseUrl, { ...body(0, 0), messages: [{ role: 'user', content }] });
      used.add(r.servedBy!);
    }
    expect(used.size).toBeGreaterThanOrEqual(3);
  });

  it('serve flags: --replicas and --router are parsed and checked', () => {
    expect(serveOptionsFromFlags({ replicas: '4', router: 'session', sessionHeader: 'x-conv' })).toMatchObject({ replicas: 4, router: 'session', sessionHeader: 'x-conv' });
    expect(serveOptionsFromFlags({ replicas: '4', router: 'prefix-hash', routerPrefixTokens: '512' })).toMatchObject({ routerPrefixTokens: 512 });
    expect(() => serveOptionsFromFlags({ replicas: '4', sessionHeader: 'x-conv' })).toThrow(/--session-header: only applies with --router session/);
    expect(() => serveOptionsFromFlags({ replicas: '4', router: 'session', routerPrefixTokens: '8' })).toThrow(/--router-prefix-tokens: only applies with --router prefix-hash/);
    expect(() => serveOptionsFromFlags({ replicas: '4', router: 'session', sessionHeader: 'bad header' })).toThrow(/--session-header/);
    expect(serveOptionsFromFlags({ replicas: '4', router: 'prefix-hash' })).toMatchObject({ replicas: 4, router: 'prefix-hash' });
    expect(() => serveOptionsFromFlags({ replicas: '0' })).toThrow(/--replicas/);
    expect(() => serveOptionsFromFlags({ router: 'sticky' })).toThrow(/--router/);
    expect(() => serveOptionsFromFlags({ router: 'prefix-hash' })).toThrow(/--router: only applies with --replicas 2 or more/);
  });

  it('the prefix key is the first N tokens of the first message, or of the prompt', () => {
    const tok = loadTokenizer(DEFAULT_TOKENIZER);
    expect(firstText(JSON.stringify(body(3, 0)))).toBe(system(3));
    expect(firstText(JSON.stringify({ prompt: 'abc' }))).toBe('abc');
    expect(firstText('not json')).toBe('not json');
    const ids = tok.encode(system(3));
    expect(ids.length).toBeGreaterThan(64);
    expect(prefixTokensKey(JSON.stringify(body(3, 0)), tok, 64)).toBe(ids.slice(0, 64).join(','));
    // Shorter than N: the whole first message.
    expect(prefixTokensKey(JSON.stringify({ prompt: 'abc' }), tok, 64)).toBe(tok.encode('abc').join(','));
    expect(sessionKey({ 'x-session-id': 'c1' }, 'X-Session-Id')).toBe('c1');
    expect(sessionKey({ 'x-session-id': ['c2', 'c3'] }, 'x-session-id')).toBe('c2');
    expect(sessionKey({}, 'x-session-id')).toBeUndefined();
  });
});
