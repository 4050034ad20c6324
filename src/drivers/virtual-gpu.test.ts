// The virtual driver's modelled GPU timeline: utilization is the share of each period inside engine steps, memory follows KV use.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveEngine } from '../sim/engine/config.js';
import type { EngineCounters } from '../sim/engine/engine.js';
import { VirtualClock } from './virtual-clock.js';
import { virtualGpuSource } from './virtual-gpu.js';

const decode = { cost: { computeMs: 1, memoryMs: 4 } }; // memory-bound: occupancy 0.625
const prefill = { cost: { computeMs: 4, memoryMs: 1 } }; // compute-bound: occupancy 1

describe('virtualGpuSource', () => {
  it('samples every interval of virtual time: busy share, occupancy, KV memory and power per period', async () => {
    const spec = resolveEngine({ gpu: 'h100', tp: 2 });
    const clock = new VirtualClock();
    let kv = 0;
    const src = virtualGpuSource(clock, spec, () => ({ kvUsage: kv }) as EngineCounters, 1000);
    const outDir = mkdtempSync(join(tmpdir(), 'virtual-gpu-'));
    await clock.drive(async () => {
      src.start({ now: clock.now, outDir, virtual: true, notice: () => {} });
      src.step(decode, 0, 500); // 50% of the first second
      src.step(prefill, 1500, 2300); // 500 ms of the second second, 300 ms of the third
      kv = 0.5;
      await clock.sleepUntil(2600);
    });
    const res = await src.stop();
    expect(res.files).toEqual(['gpu_metrics.jsonl']);
    expect(res.meta).toEqual({ gpu_metrics: { source: 'model', server_pid: null, samples: 4, interval_ms: 1000 } });
    const lines = readFileSync(join(outDir, 'gpu_metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.t_ms)).toEqual([0, 1000, 2000, 2600]);
    for (const l of lines) {
      expect(l.source).toBe('model');
      expect(l.gpus.map((g: { gpu: string }) => g.gpu)).toEqual(['0', '1']);
    }
    const g0 = lines.map((l) => l.gpus[0]);
    expect(g0.map((g) => g.util_pct)).toEqual([0, 50, 50, 50]); // the last period: 300 of 600 ms
    expect(g0[1].sm_active).toBeCloseTo(0.5 * 0.625, 3);
    expect(g0[2].sm_active).toBeCloseTo(0.5, 3);
    const tdp = spec.gpu.tdpW!;
    const idle = spec.gpu.idleW!;
    expect(g0[0].power_w).toBeCloseTo(idle, 0);
    expect(g0[1].power_w).toBeCloseTo(idle + (tdp - idle) * 0.5, 0);
    // Weights alone at first; the KV blocks in use (half of them) later: numBlocks · blockSize · bytes per token / 2.
    const kvMiB = (spec.numBlocks * spec.blockSize * spec.kvBytesPerTokenPerGpu) / 2 / 2 ** 20;
    expect(g0[0].fb_used_mib).toBe(Math.round(spec.weightBytesPerGpu / 2 ** 20));
    expect(g0[3].fb_used_mib - g0[0].fb_used_mib).toBeCloseTo(kvMiB, -1);
    expect(g0[3].fb_used_mib + g0[3].fb_free_mib).toBeCloseTo(spec.gpu.memBytes / 2 ** 20, -1);
  });
});
