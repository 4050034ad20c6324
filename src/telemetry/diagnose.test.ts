// Findings in words from server figures: each shape fires on its evidence and only then.
import { describe, it, expect } from 'vitest';
import { diagnose } from './diagnose.js';
import { buildSummary } from '../metrics/summary.js';
import type { ServerSummary } from '../metrics/server-model.js';
import type { Summary } from '../metrics/summary-model.js';

const client = (over: Partial<Summary> = {}): Summary => ({ ...buildSummary([], {}), ...over });

function server(over: Partial<ServerSummary> & { queue?: number; prefill?: number; clientTtft?: number; serverTtft?: number } = {}): ServerSummary {
  const { queue = 10, prefill = 10, clientTtft = 100, serverTtft = 20, ...rest } = over;
  return {
    engine: 'vllm', samples: 5, window_ms: [0, 1000], time_scale: 1,
    running_mean: 4, waiting_mean: 0, waiting_max: 0, kv_usage_mean: 0.3, kv_usage_max: 0.4, preemptions: 0, prefix_hit_rate: null,
    prompt_tokens_per_s: null, generation_tokens_per_s: null, spec_decode: null, rejected_values: 0, times: {},
    ttft_decomposition: { client_ttft_mean_ms: clientTtft, client_ttft_p50_ms: clientTtft, queue_mean_ms: queue, prefill_mean_ms: prefill, prefill_source: 'histogram', rest_mean_ms: clientTtft - queue - prefill, rest_p50_ms: null },
    vs_client: { ttft_mean_ms: { server: serverTtft, client: clientTtft, difference: clientTtft - serverTtft }, itl_mean_ms: { server: null, client: null, difference: null } },
    findings: [],
    ...rest,
  };
}
const kinds = (s: ServerSummary, c = client(), itl: { running: number; itlMs: number }[] = []) => diagnose(s, c, itl).map((f) => f.kind);

describe('diagnose', () => {
  it('queue-bound needs requests waiting and queue time dominating the TTFT', () => {
    expect(kinds(server({ queue: 80, prefill: 5, serverTtft: 85, waiting_max: 12, waiting_mean: 6 }))).toEqual(['queue_bound']);
    expect(kinds(server({ queue: 80, prefill: 5, serverTtft: 85, waiting_max: 0 }))).toEqual([]);
    // The scrapes saw nobody waiting, but the queue histogram says 3 waited on average (Little's law): queue-bound.
    const missed = server({ queue: 80, prefill: 5, serverTtft: 85, waiting_max: 0, waiting_littles_law: 3 });
    expect(kinds(missed)).toEqual(['queue_bound']);
    expect(diagnose(missed, client()).find((f) => f.kind === 'queue_bound')!.message).toContain("3.0 on average (Little's law) waiting");
    expect(kinds(server({ queue: 80, prefill: 5, serverTtft: 85, waiting_max: 0, waiting_littles_law: 0.2 }))).toEqual([]);
  });
  it('queue time shorter than one engine step is the wait for the running step to end, not queue-bound', () => {
    // Below max_num_seqs with short prompts: 4 ms of a 7 ms TTFT queued, a scrape saw one waiting, steps of 6.5 ms.
    const belowCap = { queue: 4, prefill: 1, clientTtft: 7, serverTtft: 5, waiting_max: 1, waiting_mean: 0.1 };
    const itl = (server: number | null) => ({ itl_mean_ms: { server, client: 6.6, difference: null } });
    expect(kinds(server({ ...belowCap, vs_client: { ttft_mean_ms: { server: 5, client: 7, difference: 2 }, ...itl(6.5) } }))).toEqual([]);
    // Queued for several steps: queue-bound.
    expect(kinds(server({ ...belowCap, queue: 40, clientTtft: 45, vs_client: { ttft_mean_ms: { server: 41, client: 45, difference: 4 }, ...itl(6.5) } }))).toEqual(['queue_bound']);
  });
  it('prefill-bound when prefill dominates; its message names the prompt length', () => {
    const f = diagnose(server({ queue: 5, prefill: 80, serverTtft: 85 }), client());
    expect(f.map((x) => x.kind)).toEqual(['prefill_bound']);
    expect(f[0].message).toMatch(/chunked prefill/);
    expect(f[0].evidence.prefill_mean_ms).toBe(80);
  });
  it('KV-bound needs usage above 90% and preemptions', () => {
    expect(kinds(server({ kv_usage_max: 0.97, preemptions: 3, serverTtft: 85 }))).toEqual(['kv_bound']);
    expect(kinds(server({ kv_usage_max: 0.97, preemptions: 0, serverTtft: 85 }))).toEqual([]);
  });
  it('server fine, network or gateway slow: server TTFT far below the client\'s', () => {
    expect(kinds(server({ queue: 2, prefill: 8, serverTtft: 10, clientTtft: 300 }))).toEqual(['network_or_gateway']);
    expect(kinds(server({ queue: 2, prefill: 8, serverTtft: 10, clientTtft: 40 }))).toEqual([]); // < 50 ms apart
  });
  it('bandwidth-bound decode: ITL rising with the running batch', () => {
    const itl = [1, 2, 4, 8, 16].map((r) => ({ running: r, itlMs: 5 + r }));
    expect(kinds(server({ serverTtft: 85 }), client(), itl)).toEqual(['decode_bandwidth_bound']);
    expect(kinds(server({ serverTtft: 85 }), client(), itl.map((x) => ({ ...x, itlMs: 6 })))).toEqual([]);
  });
  it('client-bound when the client health says so', () => {
    const c = client({ client: { client_bound: true, reasons: ['the client\'s event loop was blocked'] } as Summary['client'] });
    expect(kinds(server({ serverTtft: 85 }), c)).toEqual(['client_bound']);
  });
});
