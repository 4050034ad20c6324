// The summary's `server` section: what the target's /metrics said during the run (docs/output-format.md#server).

/** One server-side time over the summarized window, in ms comparable with the client's (scaled back on a fast sim server). */
export interface ServerTimeStats {
  /** Observations the server made in the window. */
  count: number;
  mean_ms: number | null;
  /** Bucket-interpolated (docs/telemetry.md#percentiles); null when the engine publishes only a mean. */
  p50_ms: number | null;
  p99_ms: number | null;
}

export interface ServerFinding {
  /** Stable kind: queue_bound, prefill_bound, kv_bound, decode_bandwidth_bound, client_bound, network_or_gateway. */
  kind: string;
  /** One sentence: what it means and what to try. */
  message: string;
  /** The figures it rests on. */
  evidence: Record<string, number | string | boolean>;
}

export interface ServerSummary {
  /** Detected from the metric-name prefixes: vllm, sglang, tgi, llamacpp, triton; null for an unknown exporter. */
  engine: string | null;
  /** True when the server is tokenflood's own simulator started by the run (no --base-url): its findings advise --sim-* flags. */
  sim?: boolean;
  /** Scrapes inside the summarized window (the one before it and the one after it included). */
  samples: number;
  /** The summarized window on the run clock: first send to last answer of the summarized (steady, measured) requests. */
  window_ms: [number, number] | null;
  /** Server times are divided by this (a sim server running N× faster than real time); 1 otherwise. */
  time_scale: number;
  running_mean: number | null;
  waiting_mean: number | null;
  /**
   * The server process's CPU and memory from its /metrics (process_cpu_seconds_total, process_resident_memory_bytes;
   * the user/system split where the exporter gives it): CPU % = Δ CPU seconds ÷ Δ wall seconds × 100 (100 = one
   * core). Absent when the exporter has no process series.
   */
  process?: { cpu_pct_mean: number | null; cpu_user_pct_mean: number | null; cpu_system_pct_mean: number | null; rss_mib_mean: number | null; rss_mib_max: number | null };
  waiting_max: number | null;
  /**
   * Requests waiting on average by Little's law: queued requests per second × mean queue time (the queue histogram's
   * count ÷ the window, × its mean). Sampled gauges miss short waits (a 50 ms wait seen by 1 Hz scrapes); this does not.
   * Null without a queue histogram; absent in older summaries.
   */
  waiting_littles_law?: number | null;
  kv_usage_mean: number | null;
  kv_usage_max: number | null;
  /** Preemptions (SGLang: retractions) during the window. */
  preemptions: number | null;
  /** Requests the engine dropped unfinished during the window (client disconnects; vLLM's finished_reason="abort"); null when not exported; absent in older summaries. */
  aborted_requests?: number | null;
  /** Cached tokens ÷ queried tokens during the window (SGLang: mean of its cache_hit_rate gauge). */
  prefix_hit_rate: number | null;
  prompt_tokens_per_s: number | null;
  generation_tokens_per_s: number | null;
  /** Speculative decoding during the window (vLLM's spec_decode counters, SGLang's spec_accept_length); null when not exported. */
  spec_decode: {
    drafts: number | null;
    draft_tokens: number | null;
    accepted_tokens: number | null;
    /** accepted_tokens ÷ draft_tokens. */
    acceptance_rate: number | null;
    /** Tokens per verify step: 1 + accepted_tokens ÷ drafts (SGLang: its gauge's mean). */
    mean_acceptance_length: number | null;
    /** Tokens proposed per draft: draft_tokens ÷ drafts (vLLM's num_speculative_tokens); absent in older summaries. */
    draft_tokens_per_draft?: number | null;
    /** Client TPOT mean × mean_acceptance_length: ms per verify step of one sequence; absent in older summaries. */
    implied_step_ms?: number | null;
  } | null;
  /** Values the server reported out of their kind's range (negative counts, ratios past 1, non-finite): dropped, counted here. */
  rejected_values: number;
  times: Partial<Record<'queue' | 'prefill' | 'decode' | 'ttft' | 'itl' | 'e2e', ServerTimeStats>>;
  /** client TTFT = server queue + server prefill + rest (network, API server, client). */
  ttft_decomposition: {
    client_ttft_mean_ms: number | null;
    client_ttft_p50_ms: number | null;
    queue_mean_ms: number | null;
    prefill_mean_ms: number | null;
    /** histogram: the engine's prefill histogram; ttft_minus_queue: server TTFT mean − queue mean (no prefill histogram). */
    prefill_source: 'histogram' | 'ttft_minus_queue' | null;
    rest_mean_ms: number | null;
    rest_p50_ms: number | null;
  } | null;
  /** The server's own TTFT and ITL next to the client's: difference = client − server. */
  vs_client: {
    ttft_mean_ms: { server: number | null; client: number | null; difference: number | null };
    itl_mean_ms: { server: number | null; client: number | null; difference: number | null };
  };
  findings: ServerFinding[];
}
