// The sim server on loopback with the new catalog models: MLA, sliding-window and MXFP4 profiles serve requests and reuse prefixes.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';

async function ask(sim: SimServerHandle, content: string): Promise<{ status: number; body: { usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: { cached_tokens: number } } } }> {
  const res = await fetch(`${sim.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: sim.models[0], messages: [{ role: 'user', content }], max_tokens: 3, ignore_eos: true }),
  });
  return { status: res.status, body: await res.json() };
}

describe('sim server with the models people serve now', () => {
  let sim: SimServerHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  const setups = [
    { modelProfile: 'gpt-oss-120b', gpu: 'h100', weightDtype: 'mxfp4' },
    { modelProfile: 'gemma-3-12b', gpu: 'l40s' },
    { modelProfile: 'deepseek-v3', gpu: 'h200', tp: 8, weightDtype: 'fp8' },
  ] as const;
  for (const setup of setups)
    it(`${setup.modelProfile} on ${setup.gpu}: a 2,000-token prompt is served, and served again from the prefix cache`, async () => {
      sim = await startSimServer({ ...setup, timeScale: 100 });
      expect(sim.models[0]).toBe(setup.modelProfile);
      const prompt = 'sliding windows and latent caches '.repeat(330);
      const one = await ask(sim, prompt);
      expect(one.status).toBe(200);
      expect(one.body.usage.prompt_tokens).toBeGreaterThan(1500);
      expect(one.body.usage.completion_tokens).toBe(3);
      expect(one.body.usage.prompt_tokens_details.cached_tokens).toBe(0);
      const two = await ask(sim, prompt);
      expect(two.status).toBe(200);
      // Within a few blocks of the whole prompt, sliding-window layers or not.
      expect(two.body.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(two.body.usage.prompt_tokens - 6 * 16);
    });
});
