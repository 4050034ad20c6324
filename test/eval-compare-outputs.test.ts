// eval --compare-outputs: the same prompts at temperature 0 against two servers, answers compared item by item
// (a speculative-decoding server must answer as the plain one); and eval --context-tokens against an int4-KV server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { registerEval } from '../src/cli/eval.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

const evalCli = (args: string[]) => runCli(registerEval, ['eval', '--quiet', '--no-server-metrics', ...args]);
const json = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8'));
const quiet = { log: () => {} };

describe('eval --compare-outputs', () => {
  let plain: SimServerHandle, spec: SimServerHandle, other: SimServerHandle;
  beforeAll(async () => {
    plain = await startSimServer({ timeScale: 100, accuracy: 0.7 }, quiet);
    spec = await startSimServer({ timeScale: 100, accuracy: 0.7, specMethod: 'eagle', specTokens: 3 }, quiet);
    // Another model's answers (a different accuracy draw): what a lossy speculative path would look like.
    other = await startSimServer({ timeScale: 100, accuracy: 0.3 }, quiet);
  });
  afterAll(async () => Promise.all([plain, spec, other].map((s) => s.close())));

  it('speculative decoding against plain decoding: every answer identical, exit 0, recorded in eval.json', async () => {
    const dir = tmpDir();
    const r = await evalCli(['--set', 'gsm8k', '--limit', '24', '--base-url', plain.baseUrl, '--compare-outputs', spec.baseUrl, '--out', dir]);
    expect(r.code, r.err).toBe(0);
    const c = json(dir, 'eval.json').output_comparison;
    expect(c).toMatchObject({ pairs: 24, equal: 24, mismatched: 0, unpaired: 0, equal_share: 1 });
    expect(r.out).toContain('outputs vs http://127.0.0.1:');
    expect(r.out).toContain('24/24 identical');
    // The second target's run has its own results directory inside this one.
    expect(existsSync(join(dir, 'compare-outputs', 'requests.jsonl'))).toBe(true);
  }, 120_000);

  it('a server whose answers differ: the mismatches are counted and shown, exit 1', async () => {
    const dir = tmpDir();
    const r = await evalCli(['--set', 'gsm8k', '--limit', '24', '--base-url', plain.baseUrl, '--compare-outputs', other.baseUrl, '--out', dir]);
    expect(r.code, r.err).toBe(1);
    const c = json(dir, 'eval.json').output_comparison;
    expect(c.pairs).toBe(24);
    expect(c.mismatched).toBeGreaterThan(3);
    expect(c.equal + c.mismatched).toBe(24);
    expect(c.mismatches[0].baseline).not.toBe(c.mismatches[0].candidate);
    expect(r.out).toContain(`${c.mismatched} differ`);
  }, 120_000);

  it('refuses a non-zero temperature with exit 2, before anything is sent', async () => {
    const r = await evalCli(['--set', 'gsm8k', '--limit', '4', '--base-url', plain.baseUrl, '--compare-outputs', spec.baseUrl, '--temperature', '0.7', '--out', tmpDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--compare-outputs: outputs are compared at --temperature 0');
  });
});

describe('eval --context-tokens against serve --kv-dtype int4', () => {
  let int4: SimServerHandle, bf16: SimServerHandle;
  beforeAll(async () => {
    int4 = await startSimServer({ timeScale: 1000, accuracy: 0.8, kvDtype: 'int4' }, quiet);
    bf16 = await startSimServer({ timeScale: 1000, accuracy: 0.8 }, quiet);
  });
  afterAll(async () => Promise.all([int4, bf16].map((s) => s.close())));

  it('int4 KV loses accuracy on 32K-token inputs that it does not lose on short ones; bf16 KV loses none', async () => {
    const acc = async (url: string, context: number) => {
      const dir = tmpDir();
      const r = await evalCli(['--set', 'mmlu', '--limit', '100', '--concurrency', '32', '--base-url', url, '--context-tokens', String(context), '--max-tokens', '64', '--out', dir]);
      expect(r.code, r.err).toBe(0);
      const doc = json(dir, 'eval.json');
      expect(doc.sampling.context_tokens).toBe(context);
      return doc.overall.correct as number;
    };
    const [bShort, bLong, iShort, iLong] = [await acc(bf16.baseUrl, 0), await acc(bf16.baseUrl, 32_000), await acc(int4.baseUrl, 0), await acc(int4.baseUrl, 32_000)];
    expect(bLong).toBe(bShort);
    expect(bShort - iShort).toBeLessThanOrEqual(3);
    // 10 points of 100 items, nested draws: about 10 answers turn wrong.
    expect(bShort - iLong).toBeGreaterThanOrEqual(5);
  }, 180_000);
});
