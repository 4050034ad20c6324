// One sanity rule for every number a server reports (/metrics, GPU readings, server_* timings): finite and within its kind's range.

/**
 * The kinds of server numbers and their accepted ranges (docs/telemetry.md#sanity). A value outside its range is
 * dropped (treated as not reported) and counted, never shown: a gauge of −7 waiting requests or a prefill of
 * 1e303 ms is a broken or hostile exporter, not a measurement.
 */
export const SERVER_NUMBER_RANGES = {
  /** Requests, tokens, preemptions, GPU counts: 0 … 1e15. */
  count: [0, 1e15],
  /** A share as a fraction (KV usage, prefix hit rate, SM active): 0 … 1. */
  ratio: [0, 1],
  /** A share in percent (GPU utilization): 0 … 100. */
  percent: [0, 100],
  /** A duration in seconds (histogram means and sums per observation): 0 … 1 day. */
  seconds: [0, 86_400],
  /** A duration in ms (server_* timings): 0 … 1 day. */
  ms: [0, 86_400_000],
  /** A rate in tokens/s (server_prompt_per_s, server_predicted_per_s): 0 … 1e9. */
  per_s: [0, 1e9],
  /** GPU memory in MiB: 0 … 1e8 (about 95 TiB). */
  mib: [0, 1e8],
  /** Power in watts: 0 … 1e5. */
  watts: [0, 1e5],
  /** Temperature in °C: −100 … 300. */
  celsius: [-100, 300],
  /** A clock in MHz: 0 … 1e5. */
  mhz: [0, 1e5],
} as const satisfies Record<string, readonly [number, number]>;

export type ServerNumberKind = keyof typeof SERVER_NUMBER_RANGES;

/** Whether `v` is a finite number inside the range of `kind`. */
export function saneNumber(kind: ServerNumberKind, v: unknown): v is number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  const [lo, hi] = SERVER_NUMBER_RANGES[kind];
  return v >= lo && v <= hi;
}
