// GPU and host samplers: DCGM text parsing (fixture and the sim server's live page), nvidia-smi via the fake binary, host metrics, summary.
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from '../../sim/server.js';
import { UsageError } from '../../errors.js';
import { createGpuSampler, parseGpuMetricsSpec } from './create.js';
import { parseDcgmText } from './dcgm.js';
import { parseNvidiaSmiLine } from './nvidia-smi.js';
import { cpuPct, createHostSampler, parseProcNetDev, type HostSample } from './host.js';
import { summarizeGpuSamples, type GpuSample, type GpuSampler } from './sample.js';

const fixture = (p: string): string => fileURLToPath(new URL(`../../../test/fixtures/${p}`, import.meta.url));
const FAKE_SMI = fixture('bin/nvidia-smi');

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

describe('DCGM exporter text', () => {
  it('parses the fixture into one sample per GPU with every field, other series ignored', () => {
    const s = parseDcgmText(readFileSync(fixture('dcgm-metrics.txt'), 'utf8'));
    expect(s).toEqual([
      { gpu: '0', uuid: 'GPU-11111111-2222-3333-4444-555555555555', model_name: 'NVIDIA A100-SXM4-80GB', util_pct: 97, sm_active: 0.812, fb_used_mib: 73006, fb_free_mib: 8031, power_w: 312.582, temp_c: 61, sm_clock_mhz: 1410, mem_clock_mhz: 1593 },
      { gpu: '1', uuid: 'GPU-66666666-7777-8888-9999-000000000000', model_name: 'NVIDIA A100-SXM4-80GB', util_pct: 0, sm_active: 0, fb_used_mib: 1, fb_free_mib: 81036, power_w: 61.25, temp_c: 33, sm_clock_mhz: 210, mem_clock_mhz: 1593 },
    ]);
  });
  it('a page without DCGM series gives no samples', () => {
    expect(parseDcgmText('# TYPE up gauge\nup 1\n')).toEqual([]);
  });
});

describe('GPU samplers', () => {
  let sampler: GpuSampler | undefined;
  let sim: SimServerHandle | undefined;
  afterEach(async () => {
    await sampler?.stop();
    await sim?.close();
    sampler = sim = undefined;
  });

  it('dcgm: samples the sim server /dcgm/metrics on an interval; utilization rises under load', async () => {
    sim = await startSimServer({ timeScale: 5, tp: 2 });
    const origin = sim.baseUrl.replace(/\/v1$/, '');
    const sets: GpuSample[][] = [];
    sampler = createGpuSampler(`dcgm:${origin}/dcgm/metrics`, { intervalMs: 50 });
    await sampler.start((s) => sets.push(s));
    expect(sets[0].map((g) => g.gpu)).toEqual(['0', '1']);
    expect(sets[0][0].util_pct).toBe(0);
    const body = { messages: [{ role: 'user', content: 'hi' }], max_tokens: 300, ignore_eos: true };
    await Promise.all([1, 2, 3].map(() => fetch(`${sim!.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text())));
    await until(() => sets.length >= 4, 3000);
    await sampler.stop();
    const summary = summarizeGpuSamples(sets);
    expect(summary.util_pct_max).toBeGreaterThan(0);
    expect(summary.gpus.map((g) => g.gpu)).toEqual(['0', '1']);
    expect(summary.power_w_mean).toBeGreaterThan(0);
    const n = sets.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(sets.length).toBe(n); // stop() ends the polling
  });

  it('dcgm: a URL where nothing answers is one clear message naming the flag', async () => {
    sim = await startSimServer({});
    const url = `${sim.baseUrl.replace(/\/v1$/, '')}/no-such-page`;
    await expect(createGpuSampler(`dcgm:${url}`, { intervalMs: 100 }).start(() => {})).rejects.toThrow(/--gpu-metrics dcgm:.*no DCGM exporter answered \(HTTP 404\)/);
  });

  it('nvidia-smi (fake binary): samples arrive per period with both GPUs, utilization varies, stop kills the child', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'tf-smi-')), 'pid');
    process.env.FAKE_NVIDIA_SMI_PIDFILE = pidFile;
    const sets: GpuSample[][] = [];
    try {
      sampler = createGpuSampler('nvidia-smi', { intervalMs: 40, nvidiaSmiCommand: FAKE_SMI });
      await sampler.start((s) => sets.push(s));
      await until(() => sets.length >= 4, 5000);
    } finally {
      delete process.env.FAKE_NVIDIA_SMI_PIDFILE;
    }
    expect(sets.length).toBeGreaterThanOrEqual(4);
    for (const set of sets) expect(set.map((g) => g.gpu)).toEqual(['0', '1']);
    expect(sets[0][1]).toMatchObject({ model_name: 'NVIDIA H100 80GB HBM3', util_pct: 40, fb_used_mib: 32000, fb_free_mib: 81559 - 32000, power_w: 322, sm_clock_mhz: 1980, mem_clock_mhz: 2619 });
    expect(new Set(sets.map((s) => s[0].util_pct)).size).toBeGreaterThan(1);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);
    await sampler.stop();
    expect(isAlive(pid)).toBe(false);
    const n = sets.length;
    await new Promise((r) => setTimeout(r, 120));
    expect(sets.length).toBe(n);
  });

  it('nvidia-smi: warnings, blank lines and N/A fields are skipped, the rest kept', async () => {
    process.env.FAKE_NVIDIA_SMI_GARBAGE = '1';
    const sets: GpuSample[][] = [];
    try {
      sampler = createGpuSampler('nvidia-smi', { intervalMs: 40, nvidiaSmiCommand: FAKE_SMI });
      await sampler.start((s) => sets.push(s));
      await until(() => sets.length >= 3, 5000);
    } finally {
      delete process.env.FAKE_NVIDIA_SMI_GARBAGE;
    }
    expect(sets.length).toBeGreaterThanOrEqual(3);
    for (const set of sets) {
      expect(set).toHaveLength(2);
      expect(set[1].power_w).toBeUndefined();
      expect(set[0].power_w).toBeGreaterThan(0);
    }
  });

  it('nvidia-smi: a missing binary is one clear message naming the flag', async () => {
    const p = createGpuSampler('nvidia-smi', { intervalMs: 100, nvidiaSmiCommand: 'tokenflood-no-such-nvidia-smi' }).start(() => {});
    await expect(p).rejects.toBeInstanceOf(UsageError);
    await expect(p).rejects.toThrow(/--gpu-metrics nvidia-smi: "tokenflood-no-such-nvidia-smi" was not found on PATH/);
  });

  it('nvidia-smi: found on PATH, as the real one would be', async () => {
    const saved = process.env.PATH;
    process.env.PATH = `${fixture('bin')}:${saved}`;
    const sets: GpuSample[][] = [];
    try {
      sampler = createGpuSampler('nvidia-smi', { intervalMs: 40 });
      await sampler.start((s) => sets.push(s));
    } finally {
      process.env.PATH = saved;
    }
    await until(() => sets.length >= 1, 5000);
    expect(sets[0]).toHaveLength(2);
  });
});

describe('nvidia-smi lines', () => {
  it('parses a line, N/A as absent, rejects malformed lines', () => {
    expect(parseNvidiaSmiLine('0, GPU-x, NVIDIA L4, 12, 1000, 23034, [N/A], 40, 2040, 6250')).toEqual({
      gpu: '0', uuid: 'GPU-x', model_name: 'NVIDIA L4', util_pct: 12, fb_used_mib: 1000, fb_free_mib: 22034, temp_c: 40, sm_clock_mhz: 2040, mem_clock_mhz: 6250,
    });
    for (const bad of ['', 'index, uuid, name', 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.', 'x, 1, 2, 3, 4, 5, 6, 7, 8, 9', '0, a, b'])
      expect(parseNvidiaSmiLine(bad), bad).toBeUndefined();
  });
});

describe('--gpu-metrics values', () => {
  it('accepts dcgm:URL and nvidia-smi; anything else names the flag and the forms', () => {
    expect(parseGpuMetricsSpec('nvidia-smi')).toEqual({ kind: 'nvidia-smi' });
    expect(parseGpuMetricsSpec('dcgm:http://10.0.0.5:9400/metrics')).toEqual({ kind: 'dcgm', url: 'http://10.0.0.5:9400/metrics' });
    expect(() => parseGpuMetricsSpec('rocm-smi')).toThrow(/--gpu-metrics rocm-smi: expected dcgm:URL .* or nvidia-smi/);
    expect(() => parseGpuMetricsSpec('dcgm:ftp://x')).toThrow(/--gpu-metrics dcgm:ftp:\/\/x: expected dcgm:http/);
    expect(() => parseGpuMetricsSpec('dcgm:http://u:p@x/metrics')).toThrow(/without credentials/);
  });
});

describe('host metrics', () => {
  it('cpu % from idle/total deltas; /proc/net/dev without loopback', () => {
    expect(cpuPct({ idle: 100, total: 200 }, { idle: 150, total: 400 })).toBe(75);
    expect(cpuPct({ idle: 1, total: 1 }, { idle: 1, total: 1 })).toBe(0);
    const dev = 'Inter-|   Receive |  Transmit\n face |bytes packets ...\n    lo: 500 5 0 0 0 0 0 0 500 5 0 0 0 0 0 0\n  eth0: 1200 10 0 0 0 0 0 0 3400 20 0 0 0 0 0 0\n';
    expect(parseProcNetDev(dev)).toEqual({ rx: 1200, tx: 3400 });
  });

  it('samples the client host and a server process by pid with sane values', async () => {
    const got: HostSample[] = [];
    const h = createHostSampler({ intervalMs: 50, serverPid: process.pid });
    await h.start((s) => got.push(s));
    await until(() => got.length >= 2, 3000);
    await h.stop();
    const s = got.at(-1)!;
    expect(s.cpu_pct).toBeGreaterThanOrEqual(0);
    expect(s.cpu_pct).toBeLessThanOrEqual(100);
    expect(s.mem_used_mib).toBeGreaterThan(0);
    expect(s.mem_used_mib).toBeLessThan(s.mem_total_mib);
    expect(s.server_rss_mib).toBeGreaterThan(10); // this test process itself
    expect(s.server_cpu_pct).toBeGreaterThanOrEqual(0);
    if (process.platform === 'linux') expect(s.net_rx_bytes).toBeGreaterThanOrEqual(0);
  });

  it('--server-pid naming no process is one clear message', async () => {
    await expect(createHostSampler({ intervalMs: 50, serverPid: 2 ** 22 + 17 }).start(() => {})).rejects.toThrow(/--server-pid 4194321: no such process/);
  });
});

describe('GPU summary', () => {
  it('mean/max utilization, max memory, mean power over all GPUs and per GPU; absent fields stay absent', () => {
    const sum = summarizeGpuSamples([
      [{ gpu: '0', util_pct: 50, fb_used_mib: 100, power_w: 200 }, { gpu: '1', util_pct: 10, fb_used_mib: 300 }],
      [{ gpu: '0', util_pct: 90, fb_used_mib: 150, power_w: 400 }, { gpu: '1', util_pct: 30, fb_used_mib: 200 }],
    ]);
    expect(sum).toEqual({
      util_pct_mean: 45, util_pct_max: 90, fb_used_mib_max: 300, power_w_mean: 300,
      gpus: [
        { gpu: '0', samples: 2, util_pct_mean: 70, util_pct_max: 90, fb_used_mib_max: 150, power_w_mean: 300, power_w_max: 400 },
        { gpu: '1', samples: 2, util_pct_mean: 20, util_pct_max: 30, fb_used_mib_max: 300 },
      ],
    });
    expect(summarizeGpuSamples([])).toEqual({ gpus: [] });
  });
});
