// Reading a vLLM bench result for compare: the shape that identifies one, the fields mapped, and refusals naming the file.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadVllmResult, parseVllmResult, vllmValues } from './vllm-read.js';

/** As benchmark_serving.py (2024) wrote it without --save-detailed: no `failed`, p99 only, no e2el percentiles. */
const OLDER = {
  date: '20240901-101500', backend: 'vllm', model_id: 'meta-llama/Llama-3.1-8B-Instruct', tokenizer_id: 'meta-llama/Llama-3.1-8B-Instruct', best_of: 1, num_prompts: 100,
  request_rate: 'inf', burstiness: 1.0, max_concurrency: 16, duration: 50, completed: 98, total_input_tokens: 100000, total_output_tokens: 12000,
  request_throughput: 1.96, request_goodput: null, output_throughput: 240, total_token_throughput: 2240,
  mean_ttft_ms: 120, median_ttft_ms: 100, std_ttft_ms: 30, p99_ttft_ms: 400, mean_tpot_ms: 20, median_tpot_ms: 19, std_tpot_ms: 2, p99_tpot_ms: 30,
  mean_itl_ms: 20, median_itl_ms: 18, std_itl_ms: 5, p99_itl_ms: 60,
};

const file = (doc: unknown, text?: string) => {
  const f = join(mkdtempSync(join(tmpdir(), 'tokenflood-vllm-')), 'r.json');
  writeFileSync(f, text ?? JSON.stringify(doc));
  return f;
};

describe('vLLM result files', () => {
  it('maps the fields compare shares; error rate from num_prompts when there is no `failed`', () => {
    const v = vllmValues(parseVllmResult(file(OLDER)));
    expect(v).toEqual({
      output_throughput: 240, request_throughput: 1.96, total_token_throughput: 2240,
      ttft_p50: 100, ttft_p99: 400, tpot_p50: 19, tpot_p99: 30, itl_p99: 60, error_rate: 0.02,
    });
    const l = loadVllmResult(file(OLDER));
    expect(l.what).toMatchObject({ endpoint: 'completions', load: 'concurrency 16', model: 'meta-llama/Llama-3.1-8B-Instruct', tokenizer: null });
    expect(l.samples.ttft_ms).toEqual([]);
  });

  it('detailed lists become samples in ms; failed requests (0.0) are not samples', () => {
    const l = loadVllmResult(file({ ...OLDER, failed: 1, ttfts: [0.1, 0, 0.2], latencies: [1, 0, 2.2], output_lens: [11, 0, 21] }));
    expect(l.values.error_rate).toBeCloseTo(1 / 99, 12);
    expect(l.samples.ttft_ms).toEqual([100, 200]);
    expect(l.samples.e2e_ms).toEqual([1000, 2200]);
    expect(l.samples.tpot_ms.map((x) => Math.round(x * 1e9) / 1e9)).toEqual([90, 100]);
  });

  it('another JSON, or appended results, is a usage error naming the file', () => {
    const f = file({ duration: 1, completed: 'x' });
    expect(() => parseVllmResult(f)).toThrow(`compare: ${f} is neither a results directory nor a vLLM bench result JSON (completed:`);
    const { mean_ttft_ms: _t, ...noMeans } = OLDER;
    expect(() => parseVllmResult(file(noMeans))).toThrow(/no mean_ttft_ms or mean_e2el_ms/);
    expect(() => parseVllmResult(file(null, `${JSON.stringify(OLDER)}\n${JSON.stringify(OLDER)}\n`))).toThrow(/not valid JSON .*2 lines/);
  });
});
