// Length distributions: syntax, clamps, seeded repeatability, lognormal moments, empirical files and their errors.
import { describe, it, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLengthDist, sampleLength } from '../src/dataset/distribution.js';
import { loadEmpiricalFile } from '../src/dataset/empirical.js';
import { resolveLength } from '../src/dataset/lengths.js';
import { resolveRunConfig } from '../src/config/load.js';
import { UsageError } from '../src/errors.js';
import { createRng } from '../src/util/rng.js';
import { percentile } from '../src/metrics/stats.js';
import { tmpDir } from './helpers.js';
import { run } from '../src/run.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { startEchoServer } from './workload-fixtures.js';

const samples = (spec: string, n: number, seed = 7) => {
  const d = resolveLength(spec, '--input-tokens');
  const rng = createRng(seed);
  return Array.from({ length: n }, () => sampleLength(d, rng));
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('length distributions', () => {
  it('lognormal:mean=1000,sd=500 reproduces the mean and p90 within 5% over 2,000 samples', () => {
    const xs = samples('lognormal:mean=1000,sd=500', 2000);
    const sigma = Math.sqrt(Math.log(1 + 0.25));
    const mu = Math.log(1000) - (sigma * sigma) / 2;
    const p90 = Math.exp(mu + 1.2815515655 * sigma);
    const sorted = [...xs].sort((a, b) => a - b);
    const meanErr = Math.abs(mean(xs) - 1000) / 1000;
    const p90Err = Math.abs((percentile(sorted, 90) as number) - p90) / p90;
    console.log(`lognormal mean ${mean(xs).toFixed(1)} (err ${(meanErr * 100).toFixed(2)}%), p90 ${percentile(sorted, 90)?.toFixed(1)} vs ${p90.toFixed(1)} (err ${(p90Err * 100).toFixed(2)}%)`);
    expect(meanErr).toBeLessThan(0.05);
    expect(p90Err).toBeLessThan(0.05);
  });

  it('lognormal by mu/sigma matches the same distribution', () => {
    const xs = samples('lognormal:mu=6.5,sigma=0.5', 2000);
    expect(Math.abs(mean(xs) - Math.exp(6.5 + 0.125)) / Math.exp(6.625)).toBeLessThan(0.05);
  });

  it('each kind samples integers within its clamps, repeatably from the seed', () => {
    expect(samples('512', 5)).toEqual([512, 512, 512, 512, 512]);
    expect(samples('fixed:64', 3)).toEqual([64, 64, 64]);
    const u = samples('uniform:10,20', 500);
    expect(Math.min(...u)).toBe(10);
    expect(Math.max(...u)).toBe(20);
    const n = samples('normal:1000,300,min=900,max=1100', 500);
    expect(n.every((x) => x >= 900 && x <= 1100 && Number.isInteger(x))).toBe(true);
    const e = samples('exponential:200', 2000);
    expect(Math.abs(mean(e) - 200) / 200).toBeLessThan(0.08);
    expect(samples('exponential:200,max=50', 100).every((x) => x <= 50 && x >= 1)).toBe(true);
    expect(samples('lognormal:1000,500', 50, 3)).toEqual(samples('lognormal:1000,500', 50, 3));
    expect(samples('lognormal:1000,500', 50, 3)).not.toEqual(samples('lognormal:1000,500', 50, 4));
  });

  it('rejects bad specs with a reason', () => {
    for (const bad of ['zipf:3', 'uniform:20,10', 'normal:100', 'lognormal:mean=100', 'fixed:0', 'normal:100,10,foo=3', 'abc', 'uniform:1,2,3']) {
      expect(() => parseLengthDist(bad), bad).toThrow();
    }
    expect(() => parseLengthDist('zipf:3')).toThrow(/unknown distribution "zipf".*kinds: fixed, uniform/);
  });

  it('reports a bad --input-tokens through the run config, naming the flag', () => {
    expect(() => resolveRunConfig({ flags: { inputTokens: 'normal:abc,1' } })).toThrow(/--input-tokens: normal needs a number for mean/);
    expect(resolveRunConfig({ flags: { inputTokens: 'lognormal:mean=1000,sd=500', outputTokens: 256 } }).config.outputTokens).toBe('256');
  });

  it('empirical:FILE samples from a list or a histogram', () => {
    const d = tmpDir();
    writeFileSync(join(d, 'list.txt'), '# lengths\n100\n200\n\n300\n');
    writeFileSync(join(d, 'hist.csv'), 'length,count\n100,1\n1000,3\n');
    const l = samples(`empirical:${join(d, 'list.txt')}`, 300);
    expect(new Set(l)).toEqual(new Set([100, 200, 300]));
    const h = samples(`empirical:${join(d, 'hist.csv')},max=900`, 2000);
    const share = h.filter((x) => x === 900).length / h.length;
    expect(share).toBeGreaterThan(0.7);
    expect(share).toBeLessThan(0.8);
    writeFileSync(join(d, 'arr.json'), '[5, 6]');
    expect(loadEmpiricalFile(join(d, 'arr.json')).values).toEqual([5, 6]);
  });

  it('empirical files with bad lines fail with file:line for each', () => {
    const d = tmpDir();
    const f = join(d, 'bad.txt');
    writeFileSync(f, '100\n200,3\nabc\n-5\n300,2,1\n');
    let err: unknown;
    try {
      resolveLength(`empirical:${f}`, '--output-tokens');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    const problems = (err as UsageError).problems;
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain(`--output-tokens: ${f}:3:`);
    expect(problems[1]).toContain(`${f}:4:`);
    expect(problems[2]).toContain(`${f}:5:`);
    expect(() => resolveLength(`empirical:${join(d, 'missing.txt')}`, '--input-tokens')).toThrow(/cannot read/);
  });
});

describe('a lognormal run', () => {
  it('2,000 requests with --input-tokens lognormal:mean=1000,sd=500 reproduce the mean and p90 of the prompts sent within 5%', async () => {
    const tok = loadTokenizer('cl100k_base');
    // The server reports usage.prompt_tokens as the tokenizer count of what it received, like the sim server.
    const server = await startEchoServer(() => 'x', (b) => (b.messages as { content: string }[]).reduce((n, m) => n + tok.count(m.content), 0), 0);
    try {
      const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 2000, concurrency: 64, inputTokens: 'lognormal:mean=1000,sd=500', outputTokens: 1, out: tmpDir(), quiet: true });
      const sigma = Math.sqrt(Math.log(1 + 0.25));
      const mu = Math.log(1000) - (sigma * sigma) / 2;
      const p90 = Math.exp(mu + 1.2815515655 * sigma);
      const got = res.summary.input_tokens;
      expect(got.count).toBe(2000);
      expect(Math.abs(got.mean! - 1000) / 1000).toBeLessThan(0.05);
      expect(Math.abs(got.p90! - p90) / p90).toBeLessThan(0.05);
      for (const r of res.records) expect(r.input_tokens).toBe(r.expected_input_tokens);
    } finally {
      await server.close();
    }
  }, 120_000);
});
