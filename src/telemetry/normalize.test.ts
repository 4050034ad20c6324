// Parser + mapping per engine, from small fixture texts in each engine's own names.
import { describe, it, expect } from 'vitest';
import { parsePromText, isPromText } from './prom-text.js';
import { normalizeScrape } from './normalize.js';
import { detectEngine } from './engines.js';

const hist = (name: string, labels: string, buckets: [string, number][], sum: number): string =>
  [`# TYPE ${name} histogram`, ...buckets.map(([le, n]) => `${name}_bucket{${labels}${labels ? ',' : ''}le="${le}"} ${n}`), `${name}_sum{${labels}} ${sum}`, `${name}_count{${labels}} ${buckets[buckets.length - 1][1]}`].join('\n');

const VLLM = [
  '# HELP vllm:num_requests_running Number of requests in model execution batches.',
  '# TYPE vllm:num_requests_running gauge',
  'vllm:num_requests_running{model_name="m",engine="0"} 3',
  'vllm:num_requests_running{model_name="m",engine="1"} 2',
  '# TYPE vllm:num_requests_waiting gauge',
  'vllm:num_requests_waiting{model_name="m",engine="0"} 7',
  '# TYPE vllm:kv_cache_usage_perc gauge',
  'vllm:kv_cache_usage_perc{model_name="m",engine="0"} 0.5',
  'vllm:kv_cache_usage_perc{model_name="m",engine="1"} 0.7',
  '# TYPE vllm:num_preemptions_total counter',
  'vllm:num_preemptions_total{model_name="m",engine="0"} 4',
  '# TYPE vllm:prompt_tokens_total counter',
  'vllm:prompt_tokens_total{model_name="m",engine="0"} 1000',
  hist('vllm:request_queue_time_seconds', 'model_name="m",engine="0"', [['0.5', 2], ['1', 5], ['+Inf', 6]], 4.2),
  hist('vllm:request_queue_time_seconds', 'model_name="m",engine="1"', [['0.5', 1], ['1', 1], ['+Inf', 1]], 0.1),
  '# TYPE vllm:cache_config_info gauge',
  'vllm:cache_config_info{block_size="16"} 1',
  '',
].join('\n');

describe('prometheus text → normalized sample', () => {
  it('vLLM: gauges summed (KV usage averaged) over engines, histograms summed by bound, unknown series raw', () => {
    const s = normalizeScrape(12.5, parsePromText(VLLM));
    expect(s.engine).toBe('vllm');
    expect(s.t_ms).toBe(12.5);
    expect(s.gauges).toEqual({ running: 5, waiting: 7, kv_usage: 0.6 });
    expect(s.counters).toEqual({ preemptions: 4, prompt_tokens: 1000 });
    expect(s.histograms.queue).toEqual({ sum: 4.3, count: 7, buckets: [[0.5, 3], [1, 6], [Infinity, 7]] });
    expect(s.raw).toEqual({ 'vllm:cache_config_info{block_size="16"}': 1 });
  });

  it('SGLang: its own names (num_queue_reqs, token_usage, cache_hit_rate, queue_time_seconds)', () => {
    const text = [
      '# TYPE sglang:num_running_reqs gauge',
      'sglang:num_running_reqs{model_name="m"} 8',
      '# TYPE sglang:num_queue_reqs gauge',
      'sglang:num_queue_reqs{model_name="m"} 2',
      '# TYPE sglang:token_usage gauge',
      'sglang:token_usage{model_name="m"} 0.28',
      '# TYPE sglang:cache_hit_rate gauge',
      'sglang:cache_hit_rate{model_name="m"} 0.25',
      '# TYPE sglang:generation_tokens_total counter',
      'sglang:generation_tokens_total{model_name="m"} 77',
      hist('sglang:queue_time_seconds', 'model_name="m"', [['0.1', 1], ['+Inf', 2]], 0.3),
      hist('sglang:time_to_first_token_seconds', 'model_name="m"', [['0.1', 1], ['+Inf', 2]], 0.5),
    ].join('\n');
    const s = normalizeScrape(0, parsePromText(text));
    expect(s.engine).toBe('sglang');
    expect(s.gauges).toEqual({ running: 8, waiting: 2, kv_usage: 0.28, prefix_hit_rate: 0.25 });
    expect(s.counters).toEqual({ generation_tokens: 77 });
    expect(s.histograms.queue!.count).toBe(2);
    expect(s.histograms.ttft!.sum).toBe(0.5);
    expect(s.raw).toEqual({});
  });

  it('TGI: label-less tgi_* names; token counts from the length histograms\' _sum', () => {
    const text = [
      '# TYPE tgi_queue_size gauge',
      'tgi_queue_size 3',
      '# TYPE tgi_batch_current_size gauge',
      'tgi_batch_current_size 12',
      hist('tgi_request_queue_duration', '', [['0.01', 4], ['+Inf', 5]], 0.2),
      hist('tgi_request_generated_tokens', '', [['100', 5], ['+Inf', 5]], 321),
      hist('tgi_request_mean_time_per_token_duration', '', [['0.05', 5], ['+Inf', 5]], 0.1),
    ].join('\n');
    const s = normalizeScrape(0, parsePromText(text));
    expect(s.engine).toBe('tgi');
    expect(s.gauges).toEqual({ running: 12, waiting: 3 });
    expect(s.counters.generation_tokens).toBe(321);
    expect(s.histograms.queue).toEqual({ sum: 0.2, count: 5, buckets: [[0.01, 4], [Infinity, 5]] });
    expect(s.histograms.itl!.count).toBe(5);
    // the generated-tokens histogram is not a mapped time: its _count is kept raw, its buckets are not (raw is bounded)
    expect(Object.keys(s.raw).some((k) => k.startsWith('tgi_request_generated_tokens_count'))).toBe(true);
    expect(Object.keys(s.raw).some((k) => k.startsWith('tgi_request_generated_tokens_bucket'))).toBe(false);
  });

  it('llama.cpp (--metrics): llamacpp: names', () => {
    const text = [
      '# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.',
      '# TYPE llamacpp:prompt_tokens_total counter',
      'llamacpp:prompt_tokens_total 400',
      '# TYPE llamacpp:tokens_predicted_total counter',
      'llamacpp:tokens_predicted_total 90',
      '# TYPE llamacpp:requests_processing gauge',
      'llamacpp:requests_processing 2',
      '# TYPE llamacpp:requests_deferred gauge',
      'llamacpp:requests_deferred 1',
      '# TYPE llamacpp:kv_cache_usage_ratio gauge',
      'llamacpp:kv_cache_usage_ratio 0.125',
    ].join('\n');
    const s = normalizeScrape(0, parsePromText(text));
    expect(s.engine).toBe('llamacpp');
    expect(s.gauges).toEqual({ running: 2, waiting: 1, kv_usage: 0.125 });
    expect(s.counters).toEqual({ prompt_tokens: 400, generation_tokens: 90 });
  });

  it('Triton/TensorRT-LLM: label-selected gauges, queue mean from µs counters, first-response histogram in ms', () => {
    const text = [
      '# TYPE nv_trt_llm_request_metrics gauge',
      'nv_trt_llm_request_metrics{model="m",request_type="scheduled",version="1"} 6',
      'nv_trt_llm_request_metrics{model="m",request_type="max",version="1"} 64',
      '# TYPE nv_inference_queue_duration_us counter',
      'nv_inference_queue_duration_us{model="m",version="1"} 3000000',
      '# TYPE nv_inference_request_success counter',
      'nv_inference_request_success{model="m",version="1"} 10',
      hist('nv_inference_first_response_histogram_ms', 'model="m",version="1"', [['100', 4], ['+Inf', 10]], 2500),
    ].join('\n');
    const s = normalizeScrape(0, parsePromText(text));
    expect(s.engine).toBe('triton');
    expect(s.gauges.running).toBe(6);
    expect(s.histograms.queue).toEqual({ sum: 3, count: 10, buckets: [] });
    expect(s.histograms.ttft).toEqual({ sum: 2.5, count: 10, buckets: [[0.1, 4], [Infinity, 10]] });
    expect(s.raw['nv_trt_llm_request_metrics{model="m",request_type="max",version="1"}']).toBe(64);
  });

  it('an unknown exporter: no engine, everything but the process series raw; HTML or JSON is not Prometheus text', () => {
    const p = parsePromText('# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1.5\nweird NaN\n');
    expect(detectEngine(p.samples)).toBeNull();
    expect(normalizeScrape(0, p).raw).toEqual({ weird: 'NaN' });
    expect(normalizeScrape(0, p).counters).toEqual({ process_cpu_seconds: 1.5 }); // the process collector is read from any exporter
    expect(isPromText('text/plain; version=0.0.4', p)).toBe(true);
    expect(isPromText('text/html', p)).toBe(false);
    expect(() => parsePromText('<html><body>Not Found</body></html>')).toThrow(/not Prometheus text/);
    expect(() => parsePromText('{"detail":"Not Found"}')).toThrow();
  });
});
