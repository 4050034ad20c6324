// The request body's `priority` on the sim server: honoured under --scheduling-policy priority, refused (as vLLM does) under fcfs.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from './server.js';

let sim: SimServerHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const post = (base: string, priority: number) =>
  fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hello there' }], max_tokens: 3, ignore_eos: true, priority }),
  });

describe('sim server: request priority', () => {
  it('fcfs refuses a non-zero priority with HTTP 400 and accepts 0', async () => {
    sim = await startSimServer({ timeScale: 50 }, { log: () => {} });
    const bad = await post(sim.baseUrl, 2);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Got priority 2 but Priority scheduling is not enabled.');
    expect((await post(sim.baseUrl, 0)).status).toBe(200);
  });

  it('--scheduling-policy priority serves any integer priority', async () => {
    sim = await startSimServer({ timeScale: 50, schedulingPolicy: 'priority' }, { log: () => {} });
    for (const p of [-1, 0, 5]) {
      const r = await post(sim.baseUrl, p);
      expect(r.status).toBe(200);
      const j = (await r.json()) as { usage: { completion_tokens: number } };
      expect(j.usage.completion_tokens).toBe(3);
    }
  });
});
