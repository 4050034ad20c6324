// Versioned runs: --tag KEY=VALUE in run.json/summary.json, the server's identity (version, max_model_len, engine
// arguments from /metrics), and compare printing both sides' identity with the differences flagged.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { tagProblem } from '../src/config/practice.js';
import { cacheConfigArgs } from '../src/telemetry/identity.js';
import { identityRows } from '../src/report/compare-identity.js';
import { capture } from './io-capture.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { tmpDir } from './helpers.js';

describe('versioned runs', () => {
  it('tags: KEY=VALUE, secret-looking keys and control characters refused', () => {
    expect(tagProblem('commit=abc')).toBeNull();
    expect(tagProblem('engine=vllm 0.9 --enable-chunked-prefill')).toBeNull();
    expect(tagProblem('commit')).toMatch(/expected KEY=VALUE/);
    expect(tagProblem('api_key=sk-1')).toMatch(/looks like a secret/);
    expect(tagProblem('hf-token=x')).toMatch(/looks like a secret/);
    expect(tagProblem('note=a\u001b[2Jb')).toMatch(/no control characters/);
  });

  it('vllm:cache_config_info labels become engine_args: only known keys, escapes undone, text made inert', () => {
    const text = '# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size="16",cache_dtype="fp8\\"x",gpu_memory_utilization="0.9",num_gpu_blocks="2048",model_path="/secret/path",enable_prefix_caching="True"} 1.0\n';
    expect(cacheConfigArgs(text)).toEqual({ block_size: '16', cache_dtype: 'fp8"x', gpu_memory_utilization: '0.9', num_gpu_blocks: '2048', enable_prefix_caching: 'True' });
    expect(cacheConfigArgs('vllm:num_requests_running 1\n')).toEqual({});
  });

  it('identity rows: the union of both sides, a difference only where both sides say something', () => {
    const rows = identityRows(
      { tags: { commit: 'a' }, model: 'm', version: '1', server_identity: { engine: 'vllm', version: '0.9', max_model_len: 32768, engine_args: { block_size: '16' } } },
      { tags: { commit: 'b', gpu: 'h100' }, model: 'm', version: '1', server_identity: { engine: 'vllm', max_model_len: 131072, engine_args: { block_size: '16' } } },
    );
    const by = Object.fromEntries(rows.map((r) => [r.field, r]));
    expect(by['tag.commit'].differs).toBe(true);
    expect(by['tag.gpu']).toMatchObject({ baseline: null, candidate: 'h100', differs: false });
    expect(by['server version']).toMatchObject({ baseline: '0.9', candidate: null, differs: false });
    expect(by.max_model_len).toMatchObject({ baseline: '32768', candidate: '131072', differs: true });
    expect(by['engine_args.block_size'].differs).toBe(false);
    expect(by.model.differs).toBe(false);
  });

  it('two sim runs: tags and server identity in run.json and summary.json; compare shows both sides and flags max_model_len and the tag', async () => {
    const root = tmpDir();
    const runOne = async (dir: string, extra: string[]) => {
      const c = capture();
      const args = ['run', '--input-tokens', '64', '--output-tokens', '8', '--requests', '6', '--concurrency', '2', '--sim-time-scale', '50', '--scrape-interval', '0.2s', '--out', join(root, dir), ...extra];
      expect(await main(args, c.io), c.err).toBe(0);
    };
    await runOne('a', ['--tag', 'commit=aaa', '--tag', 'engine=sim', '--sim-model', 'qwen2.5-7b']);
    await runOne('b', ['--tag', 'commit=bbb', '--tag', 'engine=sim']);
    const runA = JSON.parse(readFileSync(join(root, 'a', 'run.json'), 'utf8'));
    expect(runA.tags).toEqual({ commit: 'aaa', engine: 'sim' });
    expect(runA.server_identity.engine).toBe('vllm');
    expect(runA.server_identity.version).toMatch(/^tokenflood-sim /);
    expect(JSON.parse(readFileSync(join(root, 'a', 'summary.json'), 'utf8')).run.tags).toEqual({ commit: 'aaa', engine: 'sim' });
    const lenA = runA.server_identity.max_model_len;
    const lenB = JSON.parse(readFileSync(join(root, 'b', 'run.json'), 'utf8')).server_identity.max_model_len;
    expect(lenA).not.toBe(lenB);

    const c = capture();
    expect(await main(['compare', join(root, 'a'), join(root, 'b')], c.io), c.err).toBe(0);
    expect(c.out).toContain('identity (run.json tags and server_identity):');
    expect(c.out).toMatch(/tag\.commit\s+aaa\s+bbb\s+DIFFERS/);
    expect(c.out).toMatch(new RegExp(`max_model_len\\s+${lenA}\\s+${lenB}\\s+DIFFERS`));
    expect(c.out).toMatch(/tag\.engine\s+sim\s+sim\s*\n/);
    expect(c.out).toMatch(/WARNING: the two sides differ in tag\.commit, model, max_model_len/);
    const j = capture();
    await main(['compare', join(root, 'a'), join(root, 'b'), '--json'], j.io);
    const rows = JSON.parse(j.out).comparisons[0].identity as { field: string; differs: boolean }[];
    expect(rows.filter((r) => r.differs).map((r) => r.field)).toEqual(['tag.commit', 'model', 'max_model_len']);
    // compare.html (CANDIDATE/compare.html): the same rows, in headless Chromium.
    if (!hasChromium) return console.warn(NO_CHROMIUM);
    const browser = await launch();
    try {
      const page = await checkPage(browser, join(root, 'b', 'compare.html'));
      expect(page.errors).toEqual([]);
      expect(page.text).toMatch(/Identity\s*\nfield\tbaseline\tcandidate/);
      expect(page.text).toMatch(new RegExp(`max_model_len\\t${lenA}\\t${lenB}\\tdiffers`));
      expect(page.text).toContain('The two sides differ in tag.commit, model, max_model_len');
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('a bad --tag exits 2 naming the flag, before any request', async () => {
    const c = capture();
    expect(await main(['run', '--tag', 'password=hunter2', '--requests', '1', '--out', join(tmpDir(), 'x')], c.io)).toBe(2);
    expect(c.err).toMatch(/--tag: "password": looks like a secret/);
    expect(c.err).not.toContain('hunter2');
  });
});
