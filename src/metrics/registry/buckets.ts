// Histogram bucket bounds (seconds) of the live Prometheus metrics, per kind of latency.

/** Seconds. TTFT of LLM services: tens of ms (cached, small) to minutes (long prompts queued). */
export const TTFT_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Seconds. TPOT and ITL: ~1 ms (small models, speculative decoding) to a second (overloaded or preempted). */
export const TOKEN_GAP_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1];
/** Seconds. E2E: up to the default 600 s request timeout. */
export const E2E_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600];
