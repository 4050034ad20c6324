import { describe, it, expect } from 'vitest';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gridPoints } from './grid-file.js';
import { resolveSweepConfig } from './config.js';
import { UsageError } from '../errors.js';

const file = (name: string, text: string): string => {
  const p = join(mkdtempSync(join(tmpdir(), 'tf-grid-')), name);
  writeFileSync(p, text);
  return p;
};
const problems = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  return [];
};
const resolve = (flags: Record<string, unknown>, runFlags: Record<string, unknown> = {}) => resolveSweepConfig({ flags, runFlags, env: {} });

describe('grid file', () => {
  it('runs the seed workflow shape unchanged: a YAML list of {input_len, output_len, concurrency, num_prompts}', () => {
    const g = file('combos.yaml', ['- {input_len: 256, output_len: 128, concurrency: 1, num_prompts: 10}', '- input_len: 1024', '  output_len: 64', '  concurrency: 8', '  num_prompts: 40'].join('\n'));
    const r = resolve({ grid: g });
    expect(r.sweep.mode).toBe('concurrency');
    expect(r.sweep.points.map((p) => [p.name, p.load, p.inputTokens, p.outputTokens, p.requests])).toEqual([
      ['c1-in256-out128', 1, 256, 128, 10],
      ['c8-in1024-out64', 8, 1024, 64, 40],
    ]);
    // The same under combos:, in JSON, with top-level defaults.
    const j = file('combos.json', JSON.stringify({ num_prompts: 5, combos: [{ input_len: 256, output_len: 128, concurrency: 2 }, { input_tokens: 512, output_tokens: 32, rate: 3, requests: 7 }].slice(0, 1) }));
    expect(resolve({ grid: j }).sweep.points.map((p) => [p.name, p.requests])).toEqual([['c2-in256-out128', 5]]);
    // A --config sweep file may name the grid; --requests is the default for points without a count.
    const cfg = file('sweep.yaml', `grid: ${j}\nrequests: 9\nmodel: m\n`);
    expect(resolveSweepConfig({ flags: {}, runFlags: {}, configFile: cfg, env: {} }).sweep.points.map((p) => p.requests)).toEqual([5]);
    const g2 = file('g2.yaml', '- {input_len: 8, output_len: 8, concurrency: 3}\n');
    expect(resolve({ grid: g2, requests: '9' }).sweep.points.map((p) => p.requests)).toEqual([9]);
  });

  it('crosses axis lists into the full product, inputs outermost, requests paired with levels', () => {
    const g = file('axes.yaml', ['input_tokens: [256, 1024, 4096]', 'output_tokens: 32', 'concurrency: [1, 4, 16, 64]', 'requests: [4, 8, 16, 64]'].join('\n'));
    const pts = resolve({ grid: g }).sweep.points;
    expect(pts).toHaveLength(12);
    expect(pts.slice(0, 5).map((p) => `${p.name}:${p.requests}`)).toEqual(['c1-in256-out32:4', 'c4-in256-out32:8', 'c16-in256-out32:16', 'c64-in256-out32:64', 'c1-in1024-out32:4']);
    expect(gridPoints({ input_len: '8,16', output_len: [4, 8], rate: [0.5, 2] }, 'x').points.map((p) => `${p.mode}${p.load}:${p.io.input}x${p.io.output}`)).toEqual([
      'rate0.5:8x4', 'rate2:8x4', 'rate0.5:8x8', 'rate2:8x8', 'rate0.5:16x4', 'rate2:16x4', 'rate0.5:16x8', 'rate2:16x8',
    ]);
  });

  it('names the file, the point index and the key of every problem, all at once', () => {
    const g = file('bad.yaml', ['- {input_len: 256, output_len: 128, concurrency: 1, num_prompts: 10}', '- {input_len: -5, output_len: 128, concurrency: 2}', '- {input_len: 256, output_len: 128, concurency: 4}', '- {input_len: 256, output_len: 64, concurrency: 4, rate: 2}'].join('\n'));
    const p = problems(() => resolve({ grid: g }));
    expect(p).toContainEqual(`--grid ${g}: points[1] (point 2): input length: expected a positive whole number of tokens, got -5`);
    expect(p.some((x) => x.startsWith(`--grid ${g}: points[2] (point 3): unknown key "concurency" (did you mean "concurrency"?)`))).toBe(true);
    expect(p).toContainEqual(`--grid ${g}: points[2] (point 3): missing concurrency (or rate): the load of the point`);
    expect(p).toContainEqual(`--grid ${g}: points[3] (point 4): give concurrency or rate, not both`);
    expect(problems(() => resolve({ grid: join(tmpdir(), 'no-such-grid.yaml') }))[0]).toMatch(/^--grid .*no-such-grid\.yaml: cannot read the grid file/);
    expect(problems(() => resolve({ grid: file('m.yaml', '[{input_len: 8, output_len: 8, concurrency: 1}, {input_len: 8, output_len: 8, rate: 1}]') })).join('\n')).toMatch(/mixes concurrency and rate points/);
    expect(problems(() => resolve({ grid: file('a.yaml', 'input_len: [8, x]\noutput_len: 8\nconcurrency: [1, 2]\nnum_prompts: [1, 2, 3]') }))).toEqual([
      expect.stringMatching(/a\.yaml: input length: expected a positive whole number of tokens, got "x"$/),
      expect.stringMatching(/a\.yaml: requests: 3 values for 2 concurrency levels/),
    ]);
    expect(problems(() => resolve({ grid: file('ok.yaml', 'input_len: 8\noutput_len: 8\nconcurrency: 1'), concurrency: '1,2', inputOutput: '8x8' }))).toEqual([
      '--grid: the grid file sets every point\'s load and lengths; drop --concurrency, --input-output',
    ]);
  });
});

describe('grid from flags', () => {
  it('--input-tokens and --output-tokens lists cross with the levels', () => {
    const r = resolve({ concurrency: '1,4,16,64' }, { inputTokens: '256,1024,4096' });
    expect(r.sweep.points).toHaveLength(12);
    // The output side keeps the run flags' default (128).
    expect(r.sweep.points.map((p) => p.name).slice(0, 5)).toEqual(['c1-in256-out128', 'c4-in256-out128', 'c16-in256-out128', 'c64-in256-out128', 'c1-in1024-out128']);
    expect(resolve({ rate: '1,2' }, { inputTokens: '64', outputTokens: '8,16' }).sweep.points.map((p) => p.name)).toEqual(['r1-in64-out8', 'r2-in64-out8', 'r1-in64-out16', 'r2-in64-out16']);
    expect(resolve({ concurrency: '2' }, { inputTokens: '8,16', outputTokens: '4,8' }).sweep.pairs).toHaveLength(4);
    expect(problems(() => resolve({ concurrency: '1' }, { inputTokens: '8,16', outputTokens: 'uniform:1,9' }))).toEqual([expect.stringMatching(/^--input-tokens LIST: needs a fixed --output-tokens/)]);
    expect(problems(() => resolve({ concurrency: '1' }, { inputTokens: '8,0' }))[0]).toMatch(/^--input-tokens: a list of lengths takes positive whole numbers/);
    expect(problems(() => resolve({ concurrency: '1', inputOutput: '8x8' }, { inputTokens: '8,16' }))[0]).toMatch(/give the lengths one way/);
  });
});
