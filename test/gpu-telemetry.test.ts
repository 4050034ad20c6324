// GPU telemetry beside a run: the fake nvidia-smi on PATH, and DCGM series of the sim server, land in gpu_metrics.jsonl and summary.gpu.
import { describe, it, expect, afterEach } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../src/run.js';
import { startSimServer } from '../src/sim/server.js';
import { replaySummary } from '../src/report/results-dir.js';
import { readGpuLines } from '../src/telemetry/gpu-source.js';
import { tmpDir } from './helpers.js';
import { LADDER_STAGE_CONCURRENCY } from '../src/drivers/validate-ladder.js';

const fakeBin = fileURLToPath(new URL('./fixtures/bin', import.meta.url));
const path0 = process.env.PATH;
afterEach(() => {
  process.env.PATH = path0;
});

// Long enough for several 100 ms samples: 48 requests of 64 tokens at concurrency 4, real time.
const load = { requests: 48, concurrency: 4, inputTokens: 64, outputTokens: 64, quiet: true, scrapeInterval: '100ms', serverMetrics: false } as const;

describe('GPU telemetry', () => {
  it('--gpu-metrics nvidia-smi: samples of every GPU the tool lists, host metrics, the gpu section equal to report', async () => {
    process.env.PATH = `${fakeBin}:${path0}`;
    const server = await startSimServer({ timeScale: 2 });
    try {
      const res = await run({ validate: false, ...load, baseUrl: server.baseUrl, gpuMetrics: 'nvidia-smi', out: tmpDir() });
      expect(existsSync(join(res.outDir, 'gpu_metrics.jsonl'))).toBe(true);
      const lines = readGpuLines(res.outDir);
      expect(lines.some((l) => 'gpus' in l)).toBe(true);
      expect(lines.some((l) => 'host' in l)).toBe(true);
      const gpu = res.summary.gpu as { gpus: { gpu: string; samples: number }[]; util_pct_mean: number; host: { cpu_pct_mean: number } };
      expect(gpu.gpus.map((g) => g.gpu)).toEqual(['0', '1']);
      expect(gpu.gpus.every((g) => g.samples > 0)).toBe(true);
      expect(gpu.util_pct_mean).toBeGreaterThan(0);
      expect(gpu.host.cpu_pct_mean).toBeGreaterThanOrEqual(0);
      expect(res.summary.run.gpu_metrics).toMatchObject({ source: 'nvidia-smi' });
      expect(JSON.parse(JSON.stringify(replaySummary(res.outDir).summary.gpu))).toEqual(JSON.parse(JSON.stringify(res.summary.gpu)));
    } finally {
      await server.close();
    }
  });

  it('--gpu-metrics dcgm: pointed at the sim server: one entry per tensor-parallel GPU, busy under load', async () => {
    const server = await startSimServer({ timeScale: 2, tp: 2, modelProfile: 'llama-3.1-70b' });
    try {
      const dcgm = `dcgm:${new URL(server.baseUrl).origin}/dcgm/metrics`;
      // 8 requests of the 70B model (two rounds of 4) keep the GPUs busy for over a second: still several 100 ms samples.
      const res = await run({ validate: false, ...load, requests: 8, baseUrl: server.baseUrl, gpuMetrics: dcgm, out: tmpDir() });
      const gpu = res.summary.gpu as { gpus: { gpu: string }[]; util_pct_max: number; fb_used_mib_max: number };
      expect(gpu.gpus.map((g) => g.gpu).sort()).toEqual(['0', '1']);
      expect(gpu.util_pct_max).toBeGreaterThan(0);
      expect(gpu.fb_used_mib_max).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('without --gpu-metrics or --server-pid: the host is still sampled (docs: always), no GPU entries', async () => {
    const server = await startSimServer({ timeScale: 20 });
    try {
      const res = await run({ validate: false, ...load, requests: 24, baseUrl: server.baseUrl, out: tmpDir() });
      expect(existsSync(join(res.outDir, 'gpu_metrics.jsonl'))).toBe(true);
      const gpu = res.summary.gpu as { samples: number; gpus?: unknown[]; host: Record<string, number> };
      expect(gpu.samples).toBe(0);
      expect(gpu.gpus).toBeUndefined();
      expect(gpu.host.samples).toBeGreaterThan(0);
      expect(gpu.host.cpu_pct_mean).toBeGreaterThanOrEqual(0);
      if (process.platform === 'linux' && gpu.host.samples >= 2) {
        expect(gpu.host.net_rx_bytes).toBeGreaterThanOrEqual(0);
        expect(gpu.host.net_tx_mb_per_s).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await server.close();
    }
  });
});

describe('GPU telemetry that cannot start', () => {
  it('nvidia-smi missing: one message naming --gpu-metrics, no load sent (only the validation ladder, which comes first)', async () => {
    process.env.PATH = '/nonexistent';
    const server = await startSimServer({ timeScale: 20 });
    try {
      await expect(run({ ...load, requests: 4, baseUrl: server.baseUrl, gpuMetrics: 'nvidia-smi', out: tmpDir() })).rejects.toThrow(/--gpu-metrics/);
      // The sim server counts every request it finished, by finish reason: the ladder's (the sources start after
      // it, so their /metrics deltas leave it out), none of the load.
      const text = await (await fetch(`${new URL(server.baseUrl).origin}/metrics`)).text();
      const counts = [...text.matchAll(/^vllm:request_success_total\{[^}]*\} (\d+)/gm)].map((m) => Number(m[1]));
      expect(counts.length).toBeGreaterThan(0);
      expect(counts.reduce((x, y) => x + y, 0)).toBe(1 + LADDER_STAGE_CONCURRENCY);
    } finally {
      process.env.PATH = path0;
      await server.close();
    }
  });
});
