// Workloads stream: huge --requests / --duration start sending at once with flat memory; absurd sizes are refused.
import { describe, it, expect, afterEach } from 'vitest';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';
import { createWorkload } from '../src/dataset/workload.js';
import { resolveRunConfig } from '../src/config/load.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { createRng } from '../src/util/rng.js';
import type { RequestSpec } from '../src/dataset/types.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const MB = 1024 * 1024;

/** Start a run, stop it after `records` records; returns when the first request reached the server and the heap growth. */
async function firstRequests(flags: Record<string, unknown>, records = 5) {
  let firstAt: number | undefined;
  server = await startScriptServer(() => {
    firstAt ??= performance.now();
    return { steps: [{ at: 5, write: chatChunk({ content: 'ok' }) + usageChunk(8, 1) + DONE }] };
  });
  const stop = new AbortController();
  let seen = 0;
  const heap0 = process.memoryUsage().heapUsed;
  let heapMax = heap0;
  const t0 = performance.now();
  const res = await run(
    { validate: false, baseUrl: server.baseUrl, out: tmpDir(), quiet: true, gracePeriod: 1, ...flags },
    {
      signal: stop.signal,
      hooks: {
        onRecord: () => {
          heapMax = Math.max(heapMax, process.memoryUsage().heapUsed);
          if (++seen === records) stop.abort();
        },
      },
    },
  );
  return { res, firstMs: (firstAt ?? Number.NaN) - t0, endMs: performance.now() - t0, heapGrowthMb: (heapMax - heap0) / MB };
}

describe('streaming workloads', () => {
  // Before: 100,000 specs were built first (about 50 s, then out of heap at 4.2 GB): this timed out.
  it('run --requests 100000 sends its first request at once and memory stays flat', async () => {
    const r = await firstRequests({ requests: 100_000, concurrency: 4 });
    // Generous for a loaded 2-core machine: the build before the first request is capped at ~0.2 s.
    expect(r.firstMs).toBeLessThan(5000);
    expect(r.heapGrowthMb).toBeLessThan(300);
    expect(r.res.summary.run.stopped_reason).toBe('interrupted');
    expect(r.res.records.filter((x) => x.status === 'ok').length).toBeGreaterThanOrEqual(5);
    // Stopping takes effect promptly too (before: the build had to finish first).
    expect(r.endMs).toBeLessThan(15_000);
  }, 30_000);

  // Before: the whole arrival schedule (10^9 send times) was computed before the first send.
  it('an open-loop schedule of 10^9 arrivals streams (--rate 1000 --duration 1000000s)', async () => {
    const r = await firstRequests({ rate: 1000, duration: 1_000_000, concurrency: 4 });
    expect(r.firstMs).toBeLessThan(5000);
    expect(r.heapGrowthMb).toBeLessThan(300);
    expect(r.res.records.filter((x) => x.status === 'ok').length).toBeGreaterThanOrEqual(5);
  }, 30_000);

  it('gives the same prompts whether taken at once or after the read-ahead refilled', async () => {
    const tok = loadTokenizer('cl100k_base');
    const n = 300; // past the read-ahead window (256)
    for (const flags of [{}, { cacheAb: true, warmup: 2, requests: 60 }, { mix: 'preset:classic', inputTokens: 64 }] as Record<string, unknown>[]) {
      const { config } = resolveRunConfig({ flags: { inputTokens: 32, outputTokens: 4, ...flags } });
      const take = async (pause: boolean): Promise<RequestSpec[]> => {
        const w = createWorkload(config, tok, createRng(7), config.cacheAb ? undefined : n);
        const out: RequestSpec[] = [];
        for (let i = 0; i < (w.size ?? n); i++) {
          if (pause) for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
          let s = w.next(i);
          if (s instanceof Promise) s = await s;
          if (!s) break;
          out.push(s);
          w.complete?.({ spec: s, ok: true, answerText: '', reasoningText: '', record: {} as never });
        }
        return out;
      };
      const eager = await take(false);
      const paced = await take(true);
      expect(eager.length).toBeGreaterThan(50);
      expect(paced).toEqual(eager);
      if (config.cacheAb) {
        const cold = eager.filter((s) => s.class === 'cold').map((s) => s.prompt);
        expect(eager.filter((s) => s.class === 'warm').map((s) => s.prompt)).toEqual(cold);
      }
    }
  }, 60_000);
});

describe('absurd load sizes are refused before anything is sent', () => {
  const cases: [string[], RegExp][] = [
    [['--requests', '100000000'], /--requests: at most 10,000,000 requests per run/],
    [['--rate', '1e9', '--duration', '60s'], /--rate: at most 1,000,000 requests per second/],
    [['--warmup', '1e8'], /--warmup: at most 10,000,000 warmup requests/],
    [['--concurrency', '1e9'], /--concurrency: at most 100,000 requests in flight/],
  ];
  for (const [args, re] of cases) {
    it(args.join(' '), async () => {
      server = await startScriptServer(() => ({ steps: [] }));
      const c = capture();
      const code = await main(['run', '--no-validate', ...args, '--base-url', server.baseUrl, '--quiet', '--out', tmpDir()], c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toMatch(re);
      expect(server.bodies.length).toBe(0);
    });
  }
});
