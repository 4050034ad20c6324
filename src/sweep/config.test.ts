import { describe, it, expect } from 'vitest';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSweepConfig } from './config.js';
import { UsageError } from '../errors.js';
import { parseInputOutputList } from './grid.js';

const problems = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  return [];
};

describe('sweep config', () => {
  it('crosses levels with input/output pairs and pairs request counts with levels', () => {
    const r = resolveSweepConfig({ flags: { concurrency: '1,4', inputOutput: '256x256,2048x128', requests: '10,40' }, runFlags: {}, env: {} });
    expect(r.sweep.points.map((p) => [p.name, p.requests])).toEqual([
      ['c1-in256-out256', 10],
      ['c4-in256-out256', 40],
      ['c1-in2048-out128', 10],
      ['c4-in2048-out128', 40],
    ]);
    expect(r.sweep.maxErrorRate).toBe(0.05);
    // Default count: at least 100 and four waves.
    expect(resolveSweepConfig({ flags: { concurrency: '64' }, runFlags: {}, env: {} }).sweep.points[0].requests).toBe(256);
    expect(resolveSweepConfig({ flags: { rate: '0.5,2', duration: '30s' }, runFlags: {}, env: {} }).sweep.points.map((p) => [p.mode, p.load, p.durationS, p.requests])).toEqual([
      ['rate', 0.5, 30, undefined],
      ['rate', 2, 30, undefined],
    ]);
  });

  it('reads a versioned YAML sweep file with run keys and explicit points', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-sweep-cfg-'));
    const file = join(dir, 'sweep.yaml');
    writeFileSync(
      file,
      [
        'model: llama',
        'base-url: http://127.0.0.1:9/v1',
        'tokenizer: o200k_base',
        'input-output: [256x256, {input: 1024, output: 64}]',
        'points:',
        '  - {concurrency: 1, requests: 20}',
        '  - {concurrency: 8, requests: 80}',
        'slo: ttft_p99=2s,error_rate=1%',
        'max-error-rate: 10%',
      ].join('\n'),
    );
    const r = resolveSweepConfig({ flags: {}, runFlags: {}, configFile: file, env: {} });
    expect(r.runFlags).toMatchObject({ model: 'llama', baseUrl: 'http://127.0.0.1:9/v1', tokenizer: 'o200k_base' });
    expect(r.sweep.points.map((p) => `${p.name}:${p.requests}`)).toEqual(['c1-in256-out256:20', 'c8-in256-out256:80', 'c1-in1024-out64:20', 'c8-in1024-out64:80']);
    expect(r.sweep.slo?.text).toBe('ttft_p99=2000ms,error_rate=1%');
    expect(r.sweep.maxErrorRate).toBe(0.1);
  });

  it('reports every problem at once', () => {
    const p = problems(() =>
      resolveSweepConfig({ flags: { concurrency: '1,2', rate: '1', requests: '1,2,3', inputOutput: '256by256', slo: 'ttft=1' }, runFlags: { endpoint: 'nope' }, env: {} }),
    );
    expect(p.join('\n')).toMatch(/--input-output: expected INPUTxOUTPUT/);
    expect(p.join('\n')).toMatch(/--slo: unknown objective "ttft"/);
    expect(p.join('\n')).toMatch(/--rate and --concurrency/);
    expect(p.join('\n')).toMatch(/--endpoint/);
    expect(problems(() => resolveSweepConfig({ flags: {}, runFlags: {}, env: {} }))[0]).toMatch(/give --concurrency LIST/);
    expect(parseInputOutputList('256x256, 8X8').pairs).toEqual([{ input: 256, output: 256 }, { input: 8, output: 8 }]);
  });
});

describe('lengths left to the run flags', () => {
  it('does not override distributions or defaults when no --input-output is given', () => {
    const r = resolveSweepConfig({ flags: { concurrency: '2' }, runFlags: { inputTokens: 'uniform:100,200' }, env: {} });
    expect(r.sweep.points[0]).toMatchObject({ name: 'c2', inputTokens: 0, outputTokens: 0 });
    expect(r.sweep.configuredLengths).toBe('in uniform:100,200 out 128');
  });
  it('records fixed lengths that come from the run flags or their defaults as the pair, not 0x0', () => {
    const pair = (runFlags: Record<string, unknown>) => resolveSweepConfig({ flags: { concurrency: '2' }, runFlags, env: {} }).sweep.points[0];
    expect(pair({})).toMatchObject({ name: 'c2-in512-out128', inputTokens: 512, outputTokens: 128 });
    expect(pair({ inputTokens: 'fixed:64', outputTokens: '16' })).toMatchObject({ inputTokens: 64, outputTokens: 16 });
    expect(pair({ outputTokens: '16' })).toMatchObject({ inputTokens: 512, outputTokens: 16 });
    // --max-tokens and a mix are not one fixed pair: left to the run flags and described.
    const mt = resolveSweepConfig({ flags: { concurrency: '2' }, runFlags: { maxTokens: 8 }, env: {} }).sweep;
    expect(mt.points[0]).toMatchObject({ inputTokens: 0, outputTokens: 0 });
    expect(mt.configuredLengths).toBe('in 512 out 8');
  });
});
