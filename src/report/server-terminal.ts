// The terminal summary's server lines: engine, queue/KV figures, the TTFT decomposition and the findings, short.
import type { ServerSummary } from '../metrics/server-model.js';
import { fmt, pct, safeTerminalText } from './format.js';

const n = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : fmt(x));

/** The engine as shown: the embedded simulator by name (it speaks vLLM's metric names), else the detected engine. */
export function engineLabel(s: Pick<ServerSummary, 'engine' | 'sim'>): string {
  if (s.sim) return `tokenflood sim (vLLM-like engine model${s.engine && s.engine !== 'vllm' ? `, ${s.engine} metric names` : ''})`;
  return s.engine ?? 'unknown engine';
}

export function serverLines(s: ServerSummary): string[] {
  const out = [
    `server (${safeTerminalText(engineLabel(s))}, ${s.samples} samples): running ${n(s.running_mean)}, waiting ${n(s.waiting_mean)} (max ${n(s.waiting_max)}${s.waiting_littles_law != null ? `; ${n(s.waiting_littles_law)} from the queue time` : ''}), KV cache ${s.kv_usage_mean === null ? '-' : pct(s.kv_usage_mean)} (max ${s.kv_usage_max === null ? '-' : pct(s.kv_usage_max)})` +
      (s.preemptions ? `, ${s.preemptions} preemptions` : '') +
      (s.aborted_requests ? `, ${s.aborted_requests} aborted (client gone)` : '') +
      (s.prefix_hit_rate !== null ? `, prefix hits ${pct(s.prefix_hit_rate)}` : ''),
  ];
  const sd = s.spec_decode;
  if (sd && (sd.acceptance_rate !== null || sd.mean_acceptance_length !== null))
    out.push(`speculative decoding: acceptance ${sd.acceptance_rate === null ? '-' : pct(sd.acceptance_rate)}${sd.accepted_tokens !== null && sd.draft_tokens !== null ? ` (${sd.accepted_tokens} of ${sd.draft_tokens} draft tokens)` : ''}, mean acceptance length ${n(sd.mean_acceptance_length)} tokens per step`);
  if (s.rejected_values) out.push(`${s.rejected_values} server values out of range were dropped (negative counts, ratios past 1, non-finite or impossible times): docs/telemetry.md#sanity`);
  const d = s.ttft_decomposition;
  if (d && d.client_ttft_mean_ms !== null)
    out.push(`TTFT mean ${n(d.client_ttft_mean_ms)} ms = server queue ${n(d.queue_mean_ms)} + prefill ${n(d.prefill_mean_ms)}${d.prefill_source === 'ttft_minus_queue' ? ' (server TTFT − queue)' : ''} + rest ${n(d.rest_mean_ms)} (network, API server, client)`);
  const t = s.vs_client.ttft_mean_ms;
  const i = s.vs_client.itl_mean_ms;
  if (t.server !== null || i.server !== null)
    out.push(`server vs client: TTFT mean ${n(t.server)} vs ${n(t.client)} ms, ITL mean ${n(i.server)} vs ${n(i.client)} ms`);
  for (const f of s.findings) out.push(`- ${f.message}`);
  return out;
}

/**
 * Under the latency table, beside TPOT: with speculative decoding each verify step emits mean_acceptance_length tokens,
 * so TPOT × that length is what one step of one sequence costs (docs/telemetry.md#speculative-decoding).
 */
export function specDecodeTpotLines(s: ServerSummary | undefined, tpotMeanMs: number | null): string[] {
  const sd = s?.spec_decode;
  if (!sd || sd.mean_acceptance_length === null) return [];
  const step = sd.implied_step_ms ?? (tpotMeanMs !== null ? tpotMeanMs * sd.mean_acceptance_length : null);
  return [
    `(TPOT with speculative decoding: ${n(sd.mean_acceptance_length)} tokens per verify step, acceptance ${sd.acceptance_rate === null ? '-' : pct(sd.acceptance_rate)}` +
      (step !== null && tpotMeanMs !== null ? `; TPOT mean ${n(tpotMeanMs)} ms × ${n(sd.mean_acceptance_length)} = ${n(step)} ms per step` : '') +
      ')',
  ];
}
