// The run config: one zod schema (the single source of truth for keys and defaults), its flag table and validation.
import { z } from 'zod';
import { parsedString } from '../util/parsed-string.js';
import { WorkloadSchema, WORKLOAD_FLAGS } from './workload.js';
import { EmbeddedSimSchema, EMBEDDED_SIM_FLAGS } from './embedded-sim.js';
import { RoutingSchema, ROUTING_FLAGS } from './routing.js';
import { UiSchema, UI_FLAGS } from './ui.js';
import { ResultFormatSchema, RESULT_FORMAT_FLAGS } from './result-format.js';
import { GpuTelemetrySchema, GPU_TELEMETRY_FLAGS } from '../telemetry/gpu/options.js';
import { LiveMetricsSchema, LIVE_METRICS_FLAGS, OUTPUT_KINDS } from './live-metrics.js';
import { flagTable, type FlagTable } from '../util/flags.js';
import { EvalUnderLoadSchema, EVAL_UNDER_LOAD_FLAGS } from '../eval/options.js';
import { ShardSchema, SHARD_FLAGS } from './shard.js';
import { StatisticsSchema, STATISTICS_FLAGS } from './statistics.js';
import { PracticeSchema, PRACTICE_FLAGS } from './practice.js';
import { HEADER_NAME, parseDurationS } from '../util/parse.js';
import { MAX_TIMER_MESSAGE, MAX_TIMER_S } from '../util/timer.js';
import { DEFAULT_MAX_LINE_BYTES } from '../backends/sse.js';
import { BACKEND_KINDS } from '../backends/registry.js';
import { unknownKind } from '../util/kinds.js';
import { parseStages } from '../scheduler/options.js';
import { DEFAULT_PERCENTILES, parsePercentiles, type Percentiles } from '../metrics/stats.js';

const duration = z.preprocess(
  (v) => (v === undefined ? undefined : parseDurationS(v)),
  z.number({ message: 'expected a duration such as 60s, 2m, 500ms or a number of seconds' }).positive().max(MAX_TIMER_S, MAX_TIMER_MESSAGE).optional(),
);

/** A duration that may be 0 (`--grace-period 0`: cancel what is in flight at once). */
const durationOrZero = z.preprocess(
  (v) => (v === undefined ? undefined : parseDurationS(v)),
  z.number({ message: 'expected a duration such as 10s, 500ms, 0 or a number of seconds' }).min(0).max(MAX_TIMER_S, MAX_TIMER_MESSAGE).optional(),
);

export const TargetSchema = z.object({
  baseUrl: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'expected an http:// or https:// URL')
    .refine((u) => !/^https?:\/\/[^/]*@/.test(u), 'credentials in the URL are not sent and would be written to disk: use --api-key or --header instead')
    .refine((u) => !u.includes('#'), 'a fragment ("#...") is never sent to a server: remove it (a query string such as ?api-version=... is kept)')
    .optional(),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  endpoint: z.enum(['chat', 'completions']).default('chat'),
  // The message is the registries' (it names the kind and lists the valid ones); describeIssues adds "--backend: ".
  backend: z.enum(BACKEND_KINDS, { error: (iss) => unknownKind(String(iss.input), BACKEND_KINDS) }).optional(),
  backendConfig: z.string().min(1).optional(),
  batchSize: z.coerce.number({ message: 'expected a number of inputs' }).int('expected a whole number of inputs').min(1).max(4096, 'expected at most 4096 inputs per request').default(1),
  header: z.array(z.string()).default([]),
  timeout: duration.default(600),
  idleTimeout: duration,
  maxLineBytes: z.coerce.number({ message: 'expected a number of bytes' }).int('expected a whole number of bytes').min(1024, 'expected at least 1024 bytes').max(2 ** 30, 'expected at most 1073741824 bytes (1 GiB)').default(DEFAULT_MAX_LINE_BYTES),
  stream: z.boolean().default(true),
  validate: z.boolean().default(true),
  retry: z.coerce.number().int().min(0).max(10).default(0),
  maxRetryWait: duration.default(60),
  transport: z.enum(['auto', 'h1', 'undici']).default('auto'),
  requestId: z.boolean().default(true),
  requestIdHeader: z.string().regex(HEADER_NAME, "expected an HTTP header name (letters, digits and !#$%&'*+.^_`|~- only)").default('X-Request-ID'),
  requestIdPrefix: z.string().max(200).regex(/^[\x21-\x7e]+$/, 'expected visible ASCII characters without spaces (it goes into an HTTP header)').optional(),
});

/** Timeline sources beside the requests (docs/telemetry.md). */
export const TelemetrySchema = z.object({
  serverMetricsUrl: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), 'expected an http:// or https:// URL')
    .refine((u) => !/^https?:\/\/[^/]*@/.test(u), 'credentials in the URL would be written to disk: use --server-metrics-auth with --api-key or --header instead')
    .optional()
    .describe("the server's Prometheus /metrics URL (a metrics port, a router); sampled every --scrape-interval from before the first request to after the last"),
  serverMetrics: z.boolean().default(true).describe("scraping the target origin's /metrics (by default tried once at the start and used when it answers with Prometheus text)"),
  scrapeInterval: z.preprocess(
    (v) => (v === undefined ? undefined : parseDurationS(v)),
    z.number({ message: 'expected a duration such as 1s, 500ms or a number of seconds' }).min(0.1, 'expected at least 100ms').max(3600, 'expected at most 1h').default(1),
  ).describe('time between two scrapes of --server-metrics; each scrape has a deadline of min(interval, 2 s)'),
  serverMetricsAuth: z.boolean().default(false).describe("send the run's --api-key and --header values with scrapes too (off: scrapes carry no credentials)"),
  scrapeMaxBytes: z.coerce.number({ message: 'expected a number of bytes' }).int('expected a whole number of bytes').min(4096, 'expected at least 4096 bytes').max(2 ** 30, 'expected at most 1073741824 bytes (1 GiB)').default(4 << 20)
    .describe('largest /metrics page read per scrape; past it the page is cut at its last whole line and one warning says so (vLLM\'s page is tens of KiB)'),
});

const fraction = z.preprocess(
  (v) => (typeof v === 'string' && v.trim().endsWith('%') ? Number(v.trim().slice(0, -1)) / 100 : v),
  z.coerce.number({ message: 'expected a fraction such as 0.05 or a percentage such as 5%' }).min(0).max(1).optional(),
);

/** Upper bounds that catch typos (1e9 for 1e3) before anything is built or sent; far above what one client can drive. */
export const LOAD_LIMITS = { requests: 10_000_000, warmup: 10_000_000, ratePerS: 1_000_000, concurrency: 100_000 } as const;

export const LoadSchema = z.object({
  concurrency: z.coerce
    .number()
    .int()
    .positive()
    .max(LOAD_LIMITS.concurrency, { message: `at most ${LOAD_LIMITS.concurrency.toLocaleString('en-US')} requests in flight` })
    .optional(),
  rate: z.coerce
    .number()
    .positive()
    .max(LOAD_LIMITS.ratePerS, { message: `at most ${LOAD_LIMITS.ratePerS.toLocaleString('en-US')} requests per second` })
    .optional(),
  arrival: z.enum(['constant', 'poisson', 'gamma']).default('poisson'),
  burstiness: z.coerce.number().positive().default(1),
  requests: z.coerce
    .number()
    .int()
    .positive()
    .max(LOAD_LIMITS.requests, { message: `at most ${LOAD_LIMITS.requests.toLocaleString('en-US')} requests per run (split larger loads into several runs)` })
    .optional(),
  duration,
  rampUp: duration,
  rampDown: duration,
  stages: z.preprocess(
    // A config file may list the stages: ["30s:100", ...] or k6's [{ duration: 30s, target: 100 }, ...].
    (v) => (Array.isArray(v) ? v.map((x: unknown) => (x && typeof x === 'object' ? `${String((x as Record<string, unknown>).duration)}:${String((x as Record<string, unknown>).target)}` : String(x))).join(',') : v),
    parsedString((v) => parseStages(v, { vus: LOAD_LIMITS.concurrency, ratePerS: LOAD_LIMITS.ratePerS })),
  ),
  // A request count, or `auto`: the transient found by MSER-5 after the run (docs/metrics.md#steady-state).
  warmup: z
    .union([
      z.literal('auto'),
      z.coerce
        .number({ error: 'expected a number of requests or auto' })
        .int({ error: 'expected a whole number of requests or auto' })
        .min(0, { error: 'expected a number of requests (0 or more) or auto' })
        .max(LOAD_LIMITS.warmup, { message: `at most ${LOAD_LIMITS.warmup.toLocaleString('en-US')} warmup requests` }),
    ], { error: (iss) => (iss.code === 'invalid_union' ? 'expected a number of requests (0 or more) or auto' : undefined) })
    .default(0),
  maxErrorRate: fraction,
  workers: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]).default('auto'),
  gracePeriod: durationOrZero.default(10),
  prewarm: z
    .union([z.enum(['auto', 'off']), z.coerce.number().int().min(0).max(LOAD_LIMITS.concurrency)], {
      error: `expected auto, off or a number of connections (0 to ${LOAD_LIMITS.concurrency})`,
    })
    .default('auto'),
});

/** --percentiles: a list such as 50,90,99,99.9 (or a YAML list) → sorted numbers in (0, 100); default p50/p90/p95/p99. */
export const percentileList = z.unknown().optional().transform((v, ctx): Percentiles => {
  if (v === undefined) return DEFAULT_PERCENTILES;
  const r = parsePercentiles(v, '');
  if ('percentiles' in r) return r.percentiles;
  for (const message of r.problems) ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
});

export const OutputSchema = z.object({
  out: z.string().min(1).optional(),
  overwrite: z.boolean().default(false),
  json: z.boolean().default(false),
  reporter: z.union([z.string(), z.array(z.string())]).optional(),
  quiet: z.boolean().default(false),
  slo: z.string().min(1).optional(),
  failOnSlo: z.boolean().default(false),
  percentiles: percentileList,
});

export const RunConfigSchema = TargetSchema.extend(LoadSchema.shape)
  .extend(TelemetrySchema.shape)
  .extend(WorkloadSchema.shape)
  .extend(OutputSchema.shape)
  .extend(ResultFormatSchema.shape)
  .extend(EmbeddedSimSchema.shape)
  .extend(GpuTelemetrySchema.shape)
  .extend(RoutingSchema.shape)
  .extend(EvalUnderLoadSchema.shape)
  .extend(LiveMetricsSchema.shape)
  // Set from --push KIND=URL (and the old --out KIND=URL) by config/live-metrics.ts splitOutputs, not a flag of its own.
  .extend({ outputs: z.array(z.object({ kind: z.enum(OUTPUT_KINDS), url: z.string() })).default([]) })
  .extend(UiSchema.shape)
  .extend(ShardSchema.shape)
  .extend(StatisticsSchema.shape)
  .extend(PracticeSchema.shape)
  .strict();

export type RunConfigInput = z.input<typeof RunConfigSchema>;
export type RunConfig = z.output<typeof RunConfigSchema>;
/** A run's config with --warmup as the number of warmup requests sent (auto sends none: it trims after the run). */
export type SendConfig = RunConfig & { warmup: number };
/** The warmup requests a run sends: --warmup N, or 0 for --warmup auto (docs/metrics.md#steady-state). */
export const warmupRequests = (c: Pick<RunConfig, 'warmup'>): number => (c.warmup === 'auto' ? 0 : c.warmup);
export const sendConfig = (c: RunConfig): SendConfig => ({ ...c, warmup: warmupRequests(c) });

const RunOwnShape = { ...TargetSchema.shape, ...LoadSchema.shape, ...OutputSchema.shape };

export const RUN_FLAGS: FlagTable<Exclude<Extract<keyof RunConfigInput, string>, 'outputs'>> = {
  ...flagTable(RunOwnShape, {
    baseUrl: { arg: 'url', help: 'OpenAI-compatible root, e.g. http://127.0.0.1:8000/v1; a query string (?api-version=...) is kept after the endpoint path; repeat it for several endpoints (--route)', defaultText: 'start the embedded simulated server', repeatable: true },
    apiKey: { arg: 'key', help: 'API key sent as a Bearer token (also OPENAI_API_KEY or TOKENFLOOD_API_KEY); never written anywhere' },
    model: { arg: 'name', help: 'model name', defaultText: 'the first id from GET /models' },
    endpoint: { help: 'API to load: chat (/chat/completions) or completions (/completions)' },
    backend: { help: 'protocol of the requests, by kind (docs/architecture.md#registries); --endpoint chat names openai-chat, completions names openai-completions, and given together the two must agree', defaultText: 'the one --endpoint names' },
    backendConfig: { arg: 'file', help: 'JSON or YAML file of --backend custom-sse or custom-ndjson: path, request template with {{prompt}}/{{messages}}/{{model}}/{{max_tokens}}/{{stream}}, and JSON pointers to the answer, reasoning, token counts and end of stream; for --backend websocket, a file with a websocket: section: URL, request template and JSON-pointer mapping (docs/backends.md)' },
    batchSize: { help: 'inputs per request for --backend embeddings, embeddings-tei, rerank and rerank-tei (samples/s = batch size × requests/s)' },
    header: { arg: 'K: V', help: 'extra HTTP header, repeatable; values are written redacted except for a few harmless headers (docs/reliability.md)', repeatable: true },
    timeout: { arg: 'seconds', help: 'per-request timeout, e.g. 600 or 10m', unit: 's' },
    idleTimeout: { arg: 'seconds', help: 'fail a request (status timeout) when nothing arrives for this long, e.g. 30s: catches stalled streams' },
    maxLineBytes: { help: 'longest SSE line, WebSocket message or non-streamed response body accepted, in bytes; a longer one makes the request a parse_error', unit: 'bytes = 8 MiB' },
    stream: { help: 'measure non-streaming requests (TTFT then equals E2E)' },
    validate: { help: 'skip the validation ladder, climbed once per command before any load: one request, then 4 at once, each checked for response shape, streaming, usage and token counts; a failed step stops the command with exit 4, transient failures (408, 429, 5xx, no response) are retried 3 times (docs/commands/run.md#the-validation-ladder); --validate (the default) is accepted', alsoOn: true },
    requestId: { help: 'turn off the per-request id header (`<run id>-<request id>`, stored as request_id in requests.jsonl)' },
    requestIdHeader: { arg: 'name', help: 'name of the per-request id header; the embedded server echoes it and logs it' },
    requestIdPrefix: { arg: 'prefix', help: 'per-request id = PREFIX then the request number, as vllm bench serve --request-id-prefix', defaultText: 'the run id and a dash' },
    transport: { help: "HTTP client: h1 = tokenflood's HTTP/1.1 pool (least CPU per streamed token), undici = Node's undici; auto = h1 for http://, undici for https:// or through a proxy (HTTP_PROXY/HTTPS_PROXY/NO_PROXY)" },
    retry: { help: 'retry HTTP 429/503 up to N times, honouring Retry-After; every attempt is its own record and failures still count' },
    maxRetryWait: { arg: 'time', help: 'with --retry: longest wait before a retry; a Retry-After longer than this is not retried (the attempt stays a failure), e.g. 60s', unit: 's' },
    concurrency: { help: 'closed loop: at most N requests in flight; with --rate, a cap on in-flight requests', defaultText: '1 when no --rate' },
    rate: { arg: 'r', help: 'open loop: requests per second (at most 1,000,000), send times drawn from --arrival as the run goes' },
    arrival: { help: 'arrival process for --rate' },
    burstiness: { arg: 'k', help: 'gamma shape for --arrival gamma: 1 = poisson, <1 burstier, >1 smoother' },
    requests: { help: 'stop after N measured requests', defaultText: '100 when no --duration' },
    duration: { arg: 'time', help: 'stop sending after this long, e.g. 60s, 5m; ramps are part of it; with --stages it defaults to their sum' },
    rampUp: { arg: 'time', help: 'closed loop: the --concurrency streams start evenly over this period; with --rate: the rate climbs linearly from 0; the summary then covers the steady phase only (docs/metrics.md#phases)' },
    rampDown: { arg: 'time', help: 'with --duration: over its last part the streams stop evenly (closed loop) or the rate falls linearly to 0 (--rate)' },
    stages: { arg: 'list', help: "k6-style load shape, duration:target per stage, e.g. 30s:100,2m:100,30s:0 (targets are VUs) or 30s:20/s,2m:20/s,30s:0 (requests per second); the target moves linearly within a stage; not with --ramp-up/--ramp-down or --rate" },
    warmup: { arg: 'n|auto', help: 'requests sent first and left out of every statistic; auto: find the start of the steady state (MSER-5 on TTFT, docs/metrics.md#steady-state) and leave the transient out' },
    maxErrorRate: { arg: 'fraction', help: 'stop the run early when more than this share of requests fail (after at least 20), e.g. 0.5 or 50%' },
    workers: { arg: 'n|auto', help: 'worker threads that send requests, each with its own HTTP pool; auto = 1 for light loads, cores − 1 above 64 concurrent streams or 100 req/s' },
    prewarm: { arg: 'auto|off|n', help: 'keep-alive connections opened before the run clock starts, at most 32 connects at a time; auto = one per --concurrency stream, open loop min(--concurrency, ceil(rate × 2 s), 1024 without it); never more than the run sends nor than ulimit -n leaves (docs/reliability.md)' },
    gracePeriod: { arg: 'seconds', help: 'on Ctrl-C/SIGTERM or early stop, wait this long for requests in flight before cancelling them', unit: 's' },
    out: { arg: 'dir', help: 'results directory (KIND=URL here is the deprecated spelling of --push KIND=URL, still read)', defaultText: 'results/<timestamp>-<model>/', repeatable: true },
    overwrite: { help: 'allow writing into a directory that already holds a run' },
    json: { help: 'print the summary as one JSON document on stdout (progress goes to stderr); the same as --reporter json' },
    reporter: { arg: 'name', help: 'what the terminal shows, by name, repeatable: default (start lines, live view on a terminal or progress lines, summary table), live, progress, json (= --json), silent (results files only) (docs/architecture.md#reporters)', defaultText: 'default', repeatable: true },
    quiet: { help: 'no progress display' },
    slo: { arg: 'list', help: 'service level objectives, e.g. ttft_p99=2000ms,tpot_p99=50ms,e2e_p99=30s,error_rate=1%; reports goodput and pass/fail' },
    failOnSlo: { help: 'exit 1 when the --slo objectives are not met' },
    percentiles: { arg: 'list', help: 'percentiles shown and written (summary.json, tables, stats.csv, sweep.csv, reports), each between 0 and 100, e.g. 50,90,95,99,99.9; p50/p90/p95/p99 are always in summary.json', defaultText: '50,90,95,99' },
  }),
  ...flagTable(TelemetrySchema.shape, {
    serverMetricsUrl: { name: 'server-metrics', arg: 'url', help: TelemetrySchema.shape.serverMetricsUrl.description!, defaultText: "the target's origin + /metrics, when it answers" },
    serverMetrics: { help: `turn off ${TelemetrySchema.shape.serverMetrics.description!}` },
    scrapeInterval: { arg: 'time', help: TelemetrySchema.shape.scrapeInterval.description!, unit: 's' },
    serverMetricsAuth: { help: TelemetrySchema.shape.serverMetricsAuth.description! },
    scrapeMaxBytes: { arg: 'bytes', help: TelemetrySchema.shape.scrapeMaxBytes.description!, unit: 'bytes = 4 MiB' },
  }),
  ...RESULT_FORMAT_FLAGS,
  ...WORKLOAD_FLAGS,
  ...EMBEDDED_SIM_FLAGS,
  ...GPU_TELEMETRY_FLAGS,
  ...ROUTING_FLAGS,
  ...EVAL_UNDER_LOAD_FLAGS,
  ...LIVE_METRICS_FLAGS,
  ...UI_FLAGS,
  ...SHARD_FLAGS,
  ...STATISTICS_FLAGS,
  ...PRACTICE_FLAGS,
};

/** Turn zod issues into one line each, naming the flag (or config key) that was wrong. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], name: (key: string) => string): string[] {
  return issues.map((i) => {
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => `${name(k)}: unknown option`).join('; ');
    const key = String(i.path[0] ?? '');
    return key ? `${name(key)}: ${i.message}` : i.message;
  });
}
