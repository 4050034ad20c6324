// --gpu-metrics and --server-pid in the run config: accepted forms, and one message naming the flag for a bad value.
import { describe, expect, it } from 'vitest';
import { resolveRunConfig } from '../../config/load.js';
import { UsageError } from '../../errors.js';

const problems = (flags: Record<string, unknown>): string[] => {
  try {
    resolveRunConfig({ flags: { baseUrl: 'http://127.0.0.1:1/v1', ...flags }, env: {} });
    return [];
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
};

describe('--gpu-metrics / --server-pid', () => {
  it('accept dcgm:URL, nvidia-smi and a pid', () => {
    const r = resolveRunConfig({ flags: { baseUrl: 'http://127.0.0.1:1/v1', gpuMetrics: 'dcgm:http://127.0.0.1:9400/metrics', serverPid: '4242' }, env: {} });
    expect(r.config).toMatchObject({ gpuMetrics: 'dcgm:http://127.0.0.1:9400/metrics', serverPid: 4242 });
    expect(problems({ gpuMetrics: 'nvidia-smi' })).toEqual([]);
  });
  it('a bad value is one problem naming the flag', () => {
    expect(problems({ gpuMetrics: 'rocm-smi' })).toEqual(['--gpu-metrics: expected dcgm:URL (a DCGM exporter\'s /metrics) or nvidia-smi']);
    expect(problems({ gpuMetrics: 'dcgm:localhost:9400' })).toEqual(['--gpu-metrics: expected dcgm:http://host:9400/metrics (an http(s) URL without credentials)']);
    expect(problems({ serverPid: 'abc' })).toEqual(['--server-pid: expected a process id']);
    expect(problems({ serverPid: '-3' })).toEqual(['--server-pid: expected a process id']);
  });
});
