// One mapping table per inference engine: its documented /metrics names → tokenflood's normalized server view.
import type { PromSample } from './prom-text.js';

export const ENGINES = ['vllm', 'sglang', 'tgi', 'llamacpp', 'triton'] as const;
export type Engine = (typeof ENGINES)[number];

/** Instant values, summed over label sets (kv_usage, prefix_hit_rate, spec_accept_length and spec_accept_rate: averaged). */
export const GAUGES = ['running', 'waiting', 'kv_usage', 'prefix_hit_rate', 'spec_accept_length', 'spec_accept_rate', 'process_rss_bytes'] as const;
/** Cumulative counters (tokens, preemptions), summed over label sets; rates come from deltas between samples. */
export const COUNTERS = ['preemptions', 'prompt_tokens', 'generation_tokens', 'prefix_hits', 'prefix_queries', 'spec_drafts', 'spec_draft_tokens', 'spec_accepted_tokens', 'aborted', 'process_cpu_seconds', 'process_cpu_user_seconds', 'process_cpu_system_seconds'] as const;
/** Per-request time histograms (seconds), summed over label sets. */
export const HISTOGRAMS = ['queue', 'prefill', 'decode', 'ttft', 'itl', 'e2e'] as const;
export type GaugeField = (typeof GAUGES)[number];
export type CounterField = (typeof COUNTERS)[number];
export type HistogramField = (typeof HISTOGRAMS)[number];

export type MappingRow =
  | { kind: 'gauge'; field: GaugeField; name: string; labels?: Record<string, string> }
  | { kind: 'counter'; field: CounterField; name: string; labels?: Record<string, string> }
  /**
   * A histogram family `name` (`_bucket`/`_sum`/`_count`), values × `toSeconds`; or, with `sum`/`count`, two
   * cumulative counters that give only a mean (Triton's queue time in µs over successful requests).
   */
  | { kind: 'histogram'; field: HistogramField; name: string; toSeconds?: number; sum?: string; count?: string; labels?: Record<string, string> };

const g = (field: GaugeField, name: string, labels?: Record<string, string>): MappingRow => ({ kind: 'gauge', field, name, labels });
const c = (field: CounterField, name: string, labels?: Record<string, string>): MappingRow => ({ kind: 'counter', field, name, labels });
const h = (field: HistogramField, name: string, extra: Partial<Extract<MappingRow, { kind: 'histogram' }>> = {}): MappingRow => ({ kind: 'histogram', field, name, ...extra });

/** Every table cites its source in docs/telemetry.md; a name an engine renamed appears once per spelling. */
export const ENGINE_METRICS: Record<Engine, readonly MappingRow[]> = {
  // vLLM v1: vllm/v1/metrics/loggers.py (PrometheusStatLogger); docs.vllm.ai "Production Metrics".
  vllm: [
    g('running', 'vllm:num_requests_running'),
    g('waiting', 'vllm:num_requests_waiting'),
    g('kv_usage', 'vllm:kv_cache_usage_perc'),
    g('kv_usage', 'vllm:gpu_cache_usage_perc'),
    c('preemptions', 'vllm:num_preemptions_total'),
    c('prompt_tokens', 'vllm:prompt_tokens_total'),
    c('generation_tokens', 'vllm:generation_tokens_total'),
    c('prefix_hits', 'vllm:prefix_cache_hits_total'),
    c('prefix_queries', 'vllm:prefix_cache_queries_total'),
    c('prefix_hits', 'vllm:gpu_prefix_cache_hits_total'),
    c('prefix_queries', 'vllm:gpu_prefix_cache_queries_total'),
    // Speculative decoding (vllm/v1/spec_decode/metrics.py, SpecDecodingProm): Counters, exposed with `_total`.
    c('spec_drafts', 'vllm:spec_decode_num_drafts_total'),
    c('spec_draft_tokens', 'vllm:spec_decode_num_draft_tokens_total'),
    c('spec_accepted_tokens', 'vllm:spec_decode_num_accepted_tokens_total'),
    c('spec_drafts', 'vllm:spec_decode_num_drafts'),
    c('spec_draft_tokens', 'vllm:spec_decode_num_draft_tokens'),
    c('spec_accepted_tokens', 'vllm:spec_decode_num_accepted_tokens'),
    // Requests the engine dropped unfinished (client disconnects): vLLM v1 finishes them with reason abort.
    c('aborted', 'vllm:request_success_total', { finished_reason: 'abort' }),
    h('queue', 'vllm:request_queue_time_seconds'),
    h('prefill', 'vllm:request_prefill_time_seconds'),
    h('decode', 'vllm:request_decode_time_seconds'),
    h('ttft', 'vllm:time_to_first_token_seconds'),
    h('itl', 'vllm:inter_token_latency_seconds'),
    h('e2e', 'vllm:e2e_request_latency_seconds'),
  ],
  // SGLang: python/sglang/srt/metrics/collector.py; docs/references/production_metrics.md (needs --enable-metrics).
  sglang: [
    g('running', 'sglang:num_running_reqs'),
    g('waiting', 'sglang:num_queue_reqs'),
    g('kv_usage', 'sglang:token_usage'),
    g('prefix_hit_rate', 'sglang:cache_hit_rate'),
    c('preemptions', 'sglang:num_retracted_requests_total'),
    // Mean accepted tokens per verify step (1 + accepted drafts), a gauge over SGLang's last log interval.
    g('spec_accept_length', 'sglang:spec_accept_length'),
    // Accepted ÷ drafted tokens over the same interval (newer SGLang, beside spec_accept_length).
    g('spec_accept_rate', 'sglang:spec_accept_rate'),
    c('prompt_tokens', 'sglang:prompt_tokens_total'),
    c('generation_tokens', 'sglang:generation_tokens_total'),
    h('queue', 'sglang:queue_time_seconds'),
    h('ttft', 'sglang:time_to_first_token_seconds'),
    h('itl', 'sglang:inter_token_latency_seconds'),
    h('e2e', 'sglang:e2e_request_latency_seconds'),
  ],
  // TGI: router/src (metrics crate); huggingface.co/docs/text-generation-inference/reference/metrics.
  tgi: [
    g('running', 'tgi_batch_current_size'),
    g('waiting', 'tgi_queue_size'),
    c('prompt_tokens', 'tgi_request_input_length_sum'),
    c('generation_tokens', 'tgi_request_generated_tokens_sum'),
    h('queue', 'tgi_request_queue_duration'),
    h('itl', 'tgi_request_mean_time_per_token_duration'),
    h('e2e', 'tgi_request_duration'),
  ],
  // llama.cpp server (--metrics): tools/server/server.cpp, handle_metrics; tools/server/README.md.
  llamacpp: [
    g('running', 'llamacpp:requests_processing'),
    g('waiting', 'llamacpp:requests_deferred'),
    g('kv_usage', 'llamacpp:kv_cache_usage_ratio'),
    c('prompt_tokens', 'llamacpp:prompt_tokens_total'),
    c('generation_tokens', 'llamacpp:tokens_predicted_total'),
  ],
  // Triton + TensorRT-LLM backend: Triton docs user_guide/metrics.md; tensorrtllm_backend docs/guides metrics.
  triton: [
    g('running', 'nv_trt_llm_request_metrics', { request_type: 'scheduled' }),
    g('waiting', 'nv_inference_pending_request_count'),
    g('kv_usage', 'nv_trt_llm_kv_cache_block_metrics', { kv_cache_block_type: 'fraction' }),
    h('queue', 'nv_inference_queue_duration_us', { sum: 'nv_inference_queue_duration_us', count: 'nv_inference_request_success', toSeconds: 1e-6 }),
    h('ttft', 'nv_inference_first_response_histogram_ms', { toSeconds: 1e-3 }),
  ],
};

const PREFIXES: [string, Engine][] = [
  ['vllm:', 'vllm'],
  ['sglang:', 'sglang'],
  ['tgi_', 'tgi'],
  ['llamacpp:', 'llamacpp'],
  ['nv_', 'triton'],
];

/** Each engine's metric-name prefix: the unmapped series kept in a sample's `raw` carry it. */
export const ENGINE_PREFIX: Record<Engine, string> = Object.fromEntries(PREFIXES.map(([p, e]) => [e, p])) as Record<Engine, string>;

/** The engine whose metric-name prefix most samples carry; null when none does (an unknown exporter). */
export function detectEngine(samples: readonly PromSample[]): Engine | null {
  const counts = new Map<Engine, number>();
  for (const s of samples)
    for (const [p, e] of PREFIXES)
      if (s.name.startsWith(p)) {
        counts.set(e, (counts.get(e) ?? 0) + 1);
        break;
      }
  let best: Engine | null = null;
  for (const [e, n] of counts) if (best === null || n > counts.get(best)!) best = e;
  return best;
}

/**
 * The server process's own resource series (Prometheus client libraries' standard process collector: Python's
 * prometheus_client in vLLM and SGLang, Go and Rust clients, prom-client for Node, which also splits user/system),
 * read from any exporter, whatever the engine: docs/gpu-telemetry.md#a-remote-servers-cpu-and-memory.
 */
export const PROCESS_METRICS: readonly MappingRow[] = [
  c('process_cpu_seconds', 'process_cpu_seconds_total'),
  c('process_cpu_user_seconds', 'process_cpu_user_seconds_total'),
  c('process_cpu_system_seconds', 'process_cpu_system_seconds_total'),
  g('process_rss_bytes', 'process_resident_memory_bytes'),
];
