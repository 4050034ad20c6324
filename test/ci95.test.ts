// ci95 end to end on the sim server: every distribution of summary.json carries its intervals, and `report`, `merge` and `report --as` rebuild them.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { recordsOf } from '../src/report/results-dir.js';
import { orderStatisticRanks } from '../src/metrics/inference/index.js';
import { distStatsCi } from '../src/metrics/ci95.js';
import { carriedPercentiles, percentileKey } from '../src/metrics/stats.js';
import { startSimServer } from '../src/sim/server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let sim: Awaited<ReturnType<typeof startSimServer>>;
beforeAll(async () => {
  sim = await startSimServer({ timeScale: 20 });
});
afterAll(() => sim?.close());

const LOAD = ['--concurrency', '16', '--mix', 'short: 50% in 32 out 16; long: 50% in 96 out 32', '--percentiles', '99.9'];
const KEYS = ['mean', ...carriedPercentiles([99.9]).map(percentileKey)];

type Dist = Record<string, unknown> & { count: number; ci95?: Record<string, [number, number] | null> };
/** Every distribution object in a summary (count, mean, stdev, p50: DistStats), with its path. */
function distributions(v: unknown, path = '', out: [string, Dist][] = []): [string, Dist][] {
  if (!v || typeof v !== 'object') return out;
  if (!Array.isArray(v) && typeof (v as Dist).count === 'number' && 'mean' in v && 'stdev' in v && 'p50' in v) out.push([path, v as Dist]);
  else for (const [k, x] of Object.entries(v)) if (k !== 'run') distributions(x, `${path}.${k}`, out);
  return out;
}

describe('ci95 in summary.json', () => {
  it('every distribution, in the run block and each class, has an interval per carried figure, null only when too small, around its figure', async () => {
    const out = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--base-url', sim.baseUrl, '--requests', '400', ...LOAD, '--out', out], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const dists = distributions(s);
    // The run block's and both classes' latency and token distributions at least.
    for (const p of ['.ttft_ms', '.itl_ms', '.by_class.short.ttft_ms', '.by_class.long.e2e_ms', '.output_tokens']) expect(dists.map(([x]) => x)).toContain(p);
    for (const [path, d] of dists) {
      expect(Object.keys(d.ci95 ?? {}), path).toEqual(KEYS);
      for (const k of KEYS) {
        const ci = d.ci95![k];
        const need = k === 'mean' ? 2 : orderStatisticRanks(d.count, Number(k.slice(1).replace('_', '.')) / 100) ? 0 : Infinity;
        if (d.count < need) expect(ci, `${path} ${k}`).toBeNull();
        else {
          expect(ci, `${path} ${k} (n=${d.count})`).not.toBeNull();
          expect(ci![0], `${path} ${k}`).toBeLessThanOrEqual(d[k] as number);
          expect(d[k] as number, `${path} ${k}`).toBeLessThanOrEqual(ci![1]);
        }
      }
    }
    // 400 TTFTs: a p99 interval (368 needed), none for p99.9; ITL has thousands of gaps, enough for p99.9.
    expect(s.ttft_ms.count).toBe(400);
    expect(s.ttft_ms.ci95.p99).not.toBeNull();
    expect(s.ttft_ms.ci95.p99_9).toBeNull();
    expect(s.itl_ms.ci95.p99_9).not.toBeNull();
    // The interval is the order statistics of the binomial ranks over the records' values.
    const ttfts = [...recordsOf(join(out, 'requests.jsonl'))].filter((r) => !r.warmup && r.status === 'ok').map((r) => r.ttft_ms!).sort((a, b) => a - b);
    const r = orderStatisticRanks(ttfts.length, 0.9)!;
    expect(s.ttft_ms.ci95.p90).toEqual([ttfts[r[0]], ttfts[r[1]]]);
    // The terminal table shows ± on the headline rows' mean and the asked p99.9 (TTFT's has no interval: too few requests).
    expect(c.out).toMatch(/^TTFT \(ms\) +[\d.]+ ±[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+$/m);
    expect(c.out).toMatch(/^ITL \(ms\) +[\d.]+ ±[\d.]+ +[\d.]+ +[\d.]+ ±[\d.]+ +[\d.]+$/m);
    expect(c.out).toContain('(±: 95% confidence interval');

    // `report` replays requests.jsonl through the same aggregator: the same intervals.
    const rep = capture();
    expect(await main(['report', out, '--json', '--no-write'], rep.io)).toBe(0);
    const again = JSON.parse(rep.out);
    expect(again.ttft_ms.ci95).toEqual(s.ttft_ms.ci95);
    expect(again.by_class.long.itl_ms.ci95).toEqual(s.by_class.long.itl_ms.ci95);

    // `report --as vllm` recomputes under vLLM's definitions, intervals included.
    const as = capture();
    expect(await main(['report', out, '--as', 'vllm', '--json'], as.io)).toBe(0);
    const compat = JSON.parse(as.out);
    // (its views carry the four default percentiles, so their intervals are those four and the mean's)
    expect(Object.keys(compat.tool_view.ttft_ms.ci95)).toEqual(['mean', 'p50', 'p90', 'p95', 'p99']);
    expect(compat.tokenflood_view.ttft_ms.ci95.p50).toEqual(s.ttft_ms.ci95.p50);
  }, 120_000);

  it('merge: the merged summary carries the intervals of the merged records', async () => {
    const root = tmpDir();
    const dirs = [0, 1].map((i) => join(root, `shard-${i}`));
    for (const [i, d] of dirs.entries()) {
      const c = capture();
      expect(await main(['run', '--base-url', sim.baseUrl, '--requests', '120', ...LOAD, '--quiet', '--shard', `${i}/2`, '--out', d], c.io), c.err).toBe(0);
    }
    const merged = join(root, 'merged');
    const m = capture();
    expect(await main(['merge', ...dirs, '--out', merged, '--json'], m.io), m.err).toBe(0);
    const s = JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8'));
    const ok = [...recordsOf(join(merged, 'requests.jsonl'))].filter((r) => !r.warmup && r.status === 'ok');
    expect(s.ttft_ms.count).toBe(ok.length);
    expect(s.ttft_ms.ci95).toEqual(distStatsCi(ok.map((r) => r.ttft_ms!), [99.9]).ci95);
    expect(s.e2e_ms.ci95).toEqual(distStatsCi(ok.map((r) => r.e2e_ms!), [99.9]).ci95);
  }, 120_000);
});
