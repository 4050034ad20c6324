// The metric definitions of tokenflood and of the tools its numbers are compared with, as one table (docs/metrics.md#other-tools).

/** The tools whose definitions `report --as` applies; `tokenflood` is the reference row. */
export const COMPAT_TOOLS = ['vllm', 'sglang', 'guidellm', 'aiperf'] as const;
export type CompatTool = (typeof COMPAT_TOOLS)[number];
export type DefinedTool = CompatTool | 'tokenflood';

/** Where a request's timer starts: the last request byte handed to the kernel (`sent_at_ms`), or the hand-off to the HTTP client before it. */
export type StartRule = 'sent' | 'handoff';
/** Where E2E ends: end of the response, the last counted chunk, the last SSE line read ([DONE] included), or the [DONE] event. */
export type EndRule = 'end' | 'last-chunk' | 'last-event' | 'done';
/** A per-request decode pace, ms per token. */
export type PaceRule = 'decode-span' | 'latency-minus-ttft' | 'start-to-last-over-n';
/** A per-request speed, tokens/s. */
export type SpeedRule = 'inverse-tpot' | 'inverse-itl' | 'tokens-over-latency';
/** The throughput divisor: from the first request sent, due (scheduled) or handed to the client, to the last response's end. */
export type WindowRule = 'sent' | 'scheduled' | 'handoff';

/** The names a tool gives the metrics (null: it has no such metric). */
export interface ToolNames {
  ttft: string;
  tpot: string | null;
  itl: string;
  e2e: string;
  speed: string | null;
  request_throughput: string;
  output_throughput: string;
  total_token_throughput: string;
}

export interface ToolDefinition {
  tool: DefinedTool;
  title: string;
  /** Where the definitions were read (the peers' sources, not their docs). */
  source: string;
  start: StartRule;
  /**
   * Event kinds (record.ts EventKind letters) that are this tool's "chunks": TTFT is the first, ITL gaps are between
   * consecutive ones, `last-chunk` E2E is the last.
   */
  chunks: string;
  end: EndRule;
  tpot: PaceRule | null;
  /** `gaps`: the list of gaps between consecutive chunks, pooled over requests; else one pace value per request. */
  itl: 'gaps' | PaceRule;
  speed: SpeedRule | null;
  window: WindowRule;
  names: ToolNames;
}

/** The one table: every view (`report --as`, vllm-result.json, compare against a vLLM result) is computed from it. */
export const DEFINITIONS: Readonly<Record<DefinedTool, ToolDefinition>> = {
  tokenflood: {
    tool: 'tokenflood',
    title: 'tokenflood',
    source: 'src/metrics/derive.ts',
    start: 'sent',
    chunks: 'aR',
    end: 'end',
    tpot: 'decode-span',
    itl: 'gaps',
    speed: 'inverse-tpot',
    window: 'sent',
    names: { ttft: 'ttft_ms', tpot: 'tpot_ms', itl: 'itl_ms', e2e: 'e2e_ms', speed: 'output_speed_tok_s', request_throughput: 'request_throughput', output_throughput: 'output_throughput', total_token_throughput: 'total_token_throughput' },
  },
  vllm: {
    tool: 'vllm',
    title: 'vLLM bench serve',
    source: 'vllm/benchmarks/serve.py, vllm/benchmarks/lib/endpoint_request_func.py',
    start: 'handoff',
    chunks: 'raR',
    end: 'last-chunk',
    tpot: 'latency-minus-ttft',
    itl: 'gaps',
    speed: null,
    window: 'scheduled',
    names: { ttft: 'TTFT', tpot: 'TPOT', itl: 'ITL', e2e: 'E2EL', speed: null, request_throughput: 'request_throughput', output_throughput: 'output_throughput', total_token_throughput: 'total_token_throughput' },
  },
  sglang: {
    tool: 'sglang',
    title: 'SGLang bench_serving',
    source: 'python/sglang/bench_serving.py',
    start: 'handoff',
    chunks: 'a',
    end: 'last-event',
    tpot: 'latency-minus-ttft',
    itl: 'gaps',
    speed: null,
    window: 'scheduled',
    names: { ttft: 'TTFT', tpot: 'TPOT', itl: 'ITL', e2e: 'E2E Latency', speed: null, request_throughput: 'request_throughput', output_throughput: 'output_throughput', total_token_throughput: 'total_throughput' },
  },
  guidellm: {
    tool: 'guidellm',
    title: 'GuideLLM',
    source: 'src/guidellm/schemas/request_stats.py, src/guidellm/backends/openai/http.py and request_handlers.py',
    start: 'handoff',
    chunks: 'a',
    end: 'done',
    tpot: 'start-to-last-over-n',
    itl: 'decode-span',
    speed: 'tokens-over-latency',
    window: 'scheduled',
    names: { ttft: 'time_to_first_token_ms', tpot: 'time_per_output_token_ms', itl: 'inter_token_latency_ms', e2e: 'request_latency', speed: 'output_tokens_per_second (per request)', request_throughput: 'requests_per_second', output_throughput: 'output_tokens_per_second', total_token_throughput: 'tokens_per_second' },
  },
  aiperf: {
    tool: 'aiperf',
    title: 'NVIDIA AIPerf',
    source: 'src/aiperf/metrics/types/ttft_metric.py, request_latency_metric.py, inter_token_latency_metric.py',
    start: 'handoff',
    chunks: 'aR',
    end: 'last-chunk',
    tpot: null,
    itl: 'latency-minus-ttft',
    speed: 'inverse-itl',
    window: 'handoff',
    names: { ttft: 'time_to_first_token', tpot: null, itl: 'inter_token_latency', e2e: 'request_latency', speed: 'output_token_throughput_per_user', request_throughput: 'request_throughput', output_throughput: 'output_token_throughput', total_token_throughput: 'total_token_throughput' },
  },
};

const START_TEXT: Record<StartRule, string> = {
  sent: 'the last request byte handed to the kernel',
  handoff: 'the hand-off to the HTTP client (so waiting for a connection, connecting, TLS and sending are included)',
};

const CHUNK_TEXT: Record<string, string> = {
  aR: 'event carrying text (reasoning or answer)',
  raR: 'event with a non-empty choices list (a role-only or finish chunk included; the usage-only chunk and [DONE] not)',
  a: 'event carrying answer text (reasoning not counted)',
};

const END_TEXT: Record<EndRule, string> = {
  end: 'the end of the response',
  'last-chunk': 'the last chunk (as counted for TTFT)',
  'last-event': 'the last SSE line read, [DONE] included',
  done: 'the [DONE] event (the end of the response when there is none)',
};

const PACE_TEXT: Record<PaceRule, string> = {
  'decode-span': '(last chunk − first chunk) / (output tokens − 1)',
  'latency-minus-ttft': '(E2E − TTFT) / (output tokens − 1)',
  'start-to-last-over-n': '(last chunk − start) / output tokens, TTFT included',
};

const SPEED_TEXT: Record<SpeedRule, string> = {
  'inverse-tpot': '1000 / TPOT per request',
  'inverse-itl': '1000 / ITL per request',
  'tokens-over-latency': 'output tokens / E2E per request',
};

const WINDOW_TEXT: Record<WindowRule, string> = {
  sent: 'the first request sent to the last response ended',
  scheduled: 'the first request due (its scheduled send time) to the last response ended',
  handoff: 'the first hand-off to the HTTP client to the last response ended',
};

export const chunkText = (kinds: string): string => CHUNK_TEXT[kinds] ?? `event of kind ${kinds.split('').join('/')}`;

/** What one metric is under a definition, in words (null: the tool has no such metric). */
export function definitionText(d: ToolDefinition, metric: 'ttft' | 'tpot' | 'itl' | 'e2e' | 'speed' | 'throughput'): string | null {
  switch (metric) {
    case 'ttft':
      return `from ${START_TEXT[d.start]} to the first ${chunkText(d.chunks)}`;
    case 'e2e':
      return `from ${START_TEXT[d.start]} to ${END_TEXT[d.end]}`;
    case 'tpot':
      return d.tpot && PACE_TEXT[d.tpot];
    case 'itl':
      return d.itl === 'gaps' ? `gaps between consecutive chunks (a chunk: ${chunkText(d.chunks)}), pooled over requests` : `${PACE_TEXT[d.itl]}, one value per request`;
    case 'speed':
      return d.speed && SPEED_TEXT[d.speed];
    case 'throughput':
      return `totals divided by the time from ${WINDOW_TEXT[d.window]}`;
  }
}

/** One line saying how `tool` defines `metric` compared with tokenflood ("same definition" when nothing differs). */
export function differenceText(d: ToolDefinition, metric: Parameters<typeof definitionText>[1]): string {
  const theirs = definitionText(d, metric);
  const ours = definitionText(DEFINITIONS.tokenflood, metric);
  if (theirs === null) return `${d.title} has no such metric`;
  if (theirs === ours) return 'same definition';
  return `${d.title}: ${theirs}; tokenflood: ${ours ?? 'no such metric'}`;
}
