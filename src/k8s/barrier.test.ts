// The start barrier for real: N coordination servers on loopback (127.0.0.1, .2, .3, one port), shards arriving late, a shard that never comes.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { barrier, startCoordServer, type CoordServer } from './barrier.js';

/** A port free on 127.0.0.1 (the other loopback addresses are unused, so it is free there too). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('k8s start barrier', () => {
  it('every shard gets the same start time, chosen only once all are up (the last one 1.5 s late)', async () => {
    const port = await freePort();
    // Shard i listens on 127.0.0.1i (10, 11, 12): the template maps index → address as the headless Service's names do.
    const template = `http://127.0.0.1{i}:${port}`;
    const host = (i: number) => `127.0.0.1${i}`;
    const servers: CoordServer[] = [];
    try {
      const t0 = Date.now();
      const starts = await Promise.all(
        [0, 1, 2].map(async (i) => {
          if (i === 2) await sleep(1500);
          const c = await startCoordServer(host(i), port, '/nonexistent');
          servers.push(c);
          return barrier(c, { index: i, count: 3, peers: template, marginMs: 500, timeoutMs: 20_000, pollMs: 100 });
        }),
      );
      expect(new Set(starts).size).toBe(1);
      // Chosen after the late shard came up: at least 1.5 s + the margin after the first started.
      expect(starts[0]).toBeGreaterThanOrEqual(t0 + 1500 + 500);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  }, 30_000);

  it('a shard that never comes: the leader and the others give up with a message naming it, no start time', async () => {
    const port = await freePort();
    const template = `http://127.0.0.1{i}:${port}`;
    const servers = await Promise.all([0, 1].map((i) => startCoordServer(`127.0.0.1${i}`, port, '/nonexistent')));
    try {
      const r = await Promise.allSettled(servers.map((c, i) => barrier(c, { index: i, count: 3, peers: template, marginMs: 500, timeoutMs: 1500, pollMs: 100 })));
      expect(r[0]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/shard 2\/3 not ready after 2 s.*no shard started/) } });
      expect(r[1]).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/shard 0\/3 \(the leader.*gave no start time/) } });
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  }, 30_000);
});
