// The sim server's /metrics in each flavor and its DCGM GPU series, read by a real Prometheus text parser under load.
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimServer, type SimServerHandle } from '../server.js';
import { createBusyBins, powerW, stepOccupancy } from './metrics-dcgm.js';
import { METRICS_FLAVOR_NAMES } from './metrics-flavors.js';

type Family = { name: string; metrics: { value?: string; labels?: Record<string, string> }[] };
const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];
type Samples = Map<string, { labels: Record<string, string>; value: number }[]>;

/**
 * Series by name (`x_count`, `x_sum` for histograms). The parser drops the labels, _sum and _count of labelled
 * histograms, so they are declared untyped first: each line then comes back as its own series.
 */
async function scrape(sim: SimServerHandle, path = '/metrics'): Promise<Samples> {
  const text = await (await fetch(sim.baseUrl.replace(/\/v1$/, path))).text();
  const out: Samples = new Map();
  for (const f of parse(text.replace(/^# TYPE (\S+) (histogram|summary)$/gm, '# TYPE $1 untyped')))
    for (const m of f.metrics) if (m.value !== undefined) out.set(f.name, [...(out.get(f.name) ?? []), { labels: m.labels ?? {}, value: Number(m.value) }]);
  return out;
}
/** Value of a gauge or counter (first series), or a histogram's count. */
function num(m: Samples, name: string): number {
  const s = m.get(name) ?? m.get(`${name}_count`);
  if (!s) throw new Error(`${name} missing`);
  return s[0].value;
}
const has = (m: Samples, name: string): boolean => m.has(name) || m.has(`${name}_count`);
const chat = (maxTokens: number) => ({ messages: [{ role: 'user', content: 'Tell me a long story about caches.' }], max_tokens: maxTokens, ignore_eos: true, stream: true });
async function load(sim: SimServerHandle, n: number, maxTokens: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, async () => {
    const r = await fetch(`${sim.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat(maxTokens)) });
    await r.text();
  }));
}

// Names each flavor promises (docs/gpu-telemetry.md#sim-server-flavors); histograms are the per-request phases.
const NAMES = {
  vllm: {
    gauges: ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc'],
    counters: ['vllm:prompt_tokens_total', 'vllm:generation_tokens_total', 'vllm:num_preemptions_total', 'vllm:prefix_cache_queries_total', 'vllm:prefix_cache_hits_total', 'vllm:request_success_total'],
    histograms: ['vllm:request_queue_time_seconds', 'vllm:request_prefill_time_seconds', 'vllm:request_decode_time_seconds', 'vllm:request_inference_time_seconds', 'vllm:time_to_first_token_seconds', 'vllm:inter_token_latency_seconds', 'vllm:e2e_request_latency_seconds'],
    waiting: 'vllm:num_requests_waiting', queue: 'vllm:request_queue_time_seconds', generated: 'vllm:generation_tokens_total',
  },
  sglang: {
    gauges: ['sglang:num_running_reqs', 'sglang:num_queue_reqs', 'sglang:token_usage', 'sglang:cache_hit_rate', 'sglang:gen_throughput', 'sglang:num_used_tokens', 'sglang:max_total_num_tokens'],
    counters: ['sglang:prompt_tokens_total', 'sglang:generation_tokens_total', 'sglang:num_requests_total', 'sglang:num_retracted_requests_total', 'sglang:cached_tokens_total'],
    histograms: ['sglang:queue_time_seconds', 'sglang:time_to_first_token_seconds', 'sglang:inter_token_latency_seconds', 'sglang:e2e_request_latency_seconds'],
    waiting: 'sglang:num_queue_reqs', queue: 'sglang:queue_time_seconds', generated: 'sglang:generation_tokens_total',
  },
  tgi: {
    gauges: ['tgi_queue_size', 'tgi_batch_current_size', 'tgi_batch_current_max_tokens'],
    counters: ['tgi_request_count', 'tgi_request_success'],
    histograms: ['tgi_request_queue_duration', 'tgi_request_inference_duration', 'tgi_request_mean_time_per_token_duration', 'tgi_request_duration', 'tgi_request_input_length', 'tgi_request_generated_tokens', 'tgi_batch_inference_duration', 'tgi_batch_forward_duration'],
    waiting: 'tgi_queue_size', queue: 'tgi_request_queue_duration', generated: 'tgi_request_success',
  },
} as const;

describe('sim server /metrics flavors', () => {
  let sim: SimServerHandle | undefined;
  afterEach(async () => {
    await sim?.close();
    sim = undefined;
  });

  for (const flavor of METRICS_FLAVOR_NAMES) {
    it(`${flavor}: documented names, queueing visible during load, per-request histograms observed once per request`, async () => {
      sim = await startSimServer({ timeScale: 5, maxNumSeqs: 2, metricsFlavor: flavor });
      const n = NAMES[flavor];
      const before = await scrape(sim);
      for (const name of [...n.gauges, ...n.counters, ...n.histograms]) expect(has(before, name), name).toBe(true);
      expect(num(before, n.waiting)).toBe(0);
      // Six requests on two sequence slots: four wait while the first two decode.
      let done = false;
      const running = load(sim, 6, 200).finally(() => (done = true));
      let maxWaiting = 0;
      while (!done) {
        maxWaiting = Math.max(maxWaiting, num(await scrape(sim), n.waiting));
        await new Promise((r) => setTimeout(r, 5));
      }
      await running;
      const after = await scrape(sim);
      expect(maxWaiting).toBeGreaterThan(0);
      expect(num(after, n.waiting)).toBe(0);
      expect(num(after, n.queue)).toBe(6);
      for (const name of n.histograms) if (!name.includes('batch')) expect(num(after, name), name).toBeGreaterThan(0);
      expect(num(after, n.generated)).toBeGreaterThan(num(before, n.generated));
      // The four that queued waited for a whole request (≥ 200 decode steps of ≥ 1 ms) each: the queue time sum shows it.
      const queueSum = num(after, `${n.queue}_sum`);
      expect(queueSum).toBeGreaterThan(4 * 200 * 0.001);
    });
  }

  it('vLLM: queue + prefill equals TTFT per request, inference = prefill + decode', async () => {
    sim = await startSimServer({ timeScale: 10, maxNumSeqs: 1 });
    await load(sim, 3, 10);
    const m = await scrape(sim);
    const sum = (name: string): number => num(m, `${name}_sum`);
    expect(sum('vllm:request_queue_time_seconds') + sum('vllm:request_prefill_time_seconds')).toBeCloseTo(sum('vllm:time_to_first_token_seconds'), 6);
    expect(sum('vllm:request_prefill_time_seconds') + sum('vllm:request_decode_time_seconds')).toBeCloseTo(sum('vllm:request_inference_time_seconds'), 6);
    expect(sum('vllm:request_queue_time_seconds')).toBeGreaterThan(0);
  });

  it('queue time is never negative when requests arrive while the step loop runs fast (high time scale)', async () => {
    // At time scale 100 a step lasts ~0.07 ms of wall time, less than reading one request: each request arrives after
    // the step in flight was due, and the next step starts (in simulated time) before the arrival.
    sim = await startSimServer({ timeScale: 100, maxNumSeqs: 64 });
    const background = load(sim, 1, 4000);
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 12; i++) await load(sim, 1, 2);
    const m = await scrape(sim);
    await background;
    expect(num(m, 'vllm:request_queue_time_seconds')).toBe(13);
    expect(num(m, 'vllm:request_queue_time_seconds_sum')).toBeGreaterThanOrEqual(0);
  });

  it('DCGM series: one per tensor-parallel GPU, utilization > 0 under load and back to ~0 when idle', async () => {
    sim = await startSimServer({ timeScale: 5, tp: 2, maxNumSeqs: 4 });
    const idle = await scrape(sim, '/dcgm/metrics');
    const util = (m: Samples): number[] => m.get('DCGM_FI_DEV_GPU_UTIL')!.map((s) => s.value);
    expect(idle.get('DCGM_FI_DEV_GPU_UTIL')!.map((s) => s.labels.gpu)).toEqual(['0', '1']);
    expect(idle.get('DCGM_FI_DEV_GPU_UTIL')![0].labels).toMatchObject({ modelName: 'NVIDIA H100 SXM 80GB', UUID: expect.stringMatching(/^GPU-/) });
    expect(util(idle)).toEqual([0, 0]);
    const idlePower = num(idle, 'DCGM_FI_DEV_POWER_USAGE');
    const idleFb = num(idle, 'DCGM_FI_DEV_FB_USED');
    expect(idleFb).toBeGreaterThan(1000); // weights alone: ~7.5 GiB per GPU for llama-3.1-8b at tp 2
    expect(idleFb + num(idle, 'DCGM_FI_DEV_FB_FREE')).toBeCloseTo(80 * 1024, -1);

    const running = load(sim, 8, 400);
    await new Promise((r) => setTimeout(r, 300));
    const busy = await scrape(sim, '/dcgm/metrics');
    await running;
    expect(Math.min(...util(busy))).toBeGreaterThan(0);
    expect(num(busy, 'DCGM_FI_DEV_POWER_USAGE')).toBeGreaterThan(idlePower);
    expect(num(busy, 'DCGM_FI_DEV_FB_USED')).toBeGreaterThan(idleFb);
    expect(num(busy, 'DCGM_FI_PROF_SM_ACTIVE')).toBeGreaterThan(0);
    for (const name of ['DCGM_FI_DEV_GPU_TEMP', 'DCGM_FI_DEV_SM_CLOCK', 'DCGM_FI_DEV_MEM_CLOCK']) expect(num(busy, name), name).toBeGreaterThan(0);
    // The same series are on /metrics next to the engine's.
    expect(has(await scrape(sim), 'DCGM_FI_DEV_GPU_UTIL')).toBe(true);
    // The window is one wall-clock second: well after it, nothing ran in it.
    await new Promise((r) => setTimeout(r, 1300));
    expect(util(await scrape(sim, '/dcgm/metrics'))).toEqual([0, 0]);
  });
});

describe('DCGM model', () => {
  it('busy bins: share of the trailing window covered by steps', () => {
    const bins = createBusyBins(1000);
    bins.add(0, 250, 1);
    bins.add(500, 750, 0.5);
    expect(bins.fraction(1000)).toEqual([0.5, 0.375]);
    expect(bins.fraction(3000)).toEqual([0, 0]);
  });
  it('power = idle + (TDP − idle) × utilization, clamped', () => {
    expect(powerW(700, 70, 0)).toBe(70);
    expect(powerW(700, 70, 0.5)).toBe(385);
    expect(powerW(700, 70, 2)).toBe(700);
  });
  it('occupancy: memory-bound steps half, compute-bound steps full', () => {
    expect(stepOccupancy({ cost: { computeMs: 0, memoryMs: 5 } as never })).toBe(0.5);
    expect(stepOccupancy({ cost: { computeMs: 5, memoryMs: 1 } as never })).toBe(1);
  });
});
