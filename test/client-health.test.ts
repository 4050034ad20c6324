// The client checks its own health: a deliberately blocked event loop is reported as client-bound; a normal run is not.
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { run } from '../src/run.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer;
beforeAll(async () => {
  server = await startScriptServer(() => ({
    steps: [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      ...[5, 10, 15, 20].map((at) => ({ at, write: chatChunk({ content: 'x' }) })),
      { at: 20, write: usageChunk(8, 4) + DONE },
    ],
  }));
});
afterAll(() => server.close());

// Burn `ms` of this process's CPU time (not wall time: on a loaded machine the OS may deschedule the loop mid-way,
// and only CPU time is the client's own work); capped at 40x in wall time.
const busyWait = (ms: number) => {
  const c0 = process.cpuUsage();
  const wallEnd = performance.now() + 40 * ms;
  for (;;) {
    const c = process.cpuUsage(c0);
    if ((c.user + c.system) / 1000 >= ms || performance.now() > wallEnd) return;
  }
};

describe('client self-health', () => {
  it('flags client_bound, with a reason, when the event loop is blocked during a run', async () => {
    const res = await run(
      { baseUrl: server.baseUrl, requests: 40, concurrency: 4, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true },
      { hooks: { onRecord: (r) => r.id % 4 === 0 && busyWait(60) } },
    );
    const h = res.summary.client!;
    expect(h.client_bound).toBe(true);
    expect(h.event_loop_delay_ms.p99).toBeGreaterThan(10);
    expect(h.reasons.join(' ')).toMatch(/event loop/i);
  });

  // A light run: on a shared 2-core CI machine other test files run alongside, so allow a retry before judging.
  it('does not flag a normal run', { retry: 2 }, async () => {
    const res = await run({ baseUrl: server.baseUrl, requests: 40, concurrency: 4, inputTokens: 8, outputTokens: 4, out: tmpDir(), quiet: true });
    const h = res.summary.client!;
    expect(h.reasons).toEqual([]);
    expect(h.client_bound).toBe(false);
    expect(h.send_lag_ms.count).toBe(40);
  });
});
