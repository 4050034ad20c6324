// `run`: one benchmark against a server, on the real driver (wall clock, HTTP); the lifecycle does the rest.
import { snakeKeys } from './util/snake.js';
import { resolveRunConfig, type ResolvedRun } from './config/load.js';
import type { RunConfig, RunConfigInput } from './config/schema.js';
import { redactHeaders, redactKey } from './util/parse.js';
import { createRedactor, redactFields, secretValues } from './util/redact.js';
import { redactUrl } from './util/url.js';
import { shownOutputUrl } from './config/live-metrics.js';
import { UsageError } from './errors.js';
import { loadTokenizer, type Tokenizer } from './dataset/tokenizer.js';
import { backendOf } from './backends/registry.js';
import { createRealDriver } from './drivers/real.js';
import { runLifecycle, type LifecycleOptions } from './lifecycle/lifecycle.js';
import type { RunResult } from './lifecycle/result.js';
import { serverMetricsSources } from './lifecycle/telemetry-from-config.js';
import { gpuSources } from './telemetry/gpu-source.js';
import type { Target } from './target.js';

export { resolveWorkers } from './drivers/real.js';
export { retryWaitMs } from './lifecycle/send.js';
export { RunWriteError, type RunHooks, type RunResult } from './lifecycle/result.js';
export type { Reporter, RunEndEvent, RunStartEvent, SnapshotEvent } from './report/events.js';

export interface RunOptions extends LifecycleOptions {
  /** An embedded simulated server the caller started for several runs (--runs N): used when no --base-url is given, left open. */
  embedded?: Target;
}

/** The effective config as written to disk: snake_case keys, the API key and secret headers redacted. */
export function redactedConfig(c: RunConfig, headers: Record<string, string>): Record<string, unknown> {
  return snakeKeys({
    ...c,
    apiKey: redactKey(c.apiKey),
    header: Object.entries(redactHeaders(headers)).map(([k, v]) => `${k}: ${v}`),
    baseUrl: c.baseUrl && redactUrl(c.baseUrl),
    extraBody: c.extraBody && redactFields(c.extraBody),
    outputs: c.outputs.map((o) => ({ kind: o.kind, url: shownOutputUrl(o.url) })),
  }) as Record<string, unknown>;
}

/** The run's tokenizer; an unknown name is a usage error naming the flag. */
export function runTokenizer(c: RunConfig): Tokenizer {
  try {
    return loadTokenizer(c.tokenizer);
  } catch (e) {
    throw new UsageError([`--tokenizer: ${(e as Error).message}`]);
  }
}

/** Run one benchmark. Throws UsageError (exit 2) for bad config or an unreachable server, before anything is sent. */
export async function run(input: RunConfigInput | ResolvedRun, opts: RunOptions = {}): Promise<RunResult> {
  const { config: c, headers, targets = [], ladder } = 'config' in input ? input : resolveRunConfig({ flags: input as Record<string, unknown> });
  const tokenizer = runTokenizer(c);
  // Servers echo credentials in error bodies ("Incorrect API key provided: sk-..."): every text stored or printed passes this.
  const redact = createRedactor([
    ...secretValues({ apiKey: c.apiKey, headers, baseUrl: c.baseUrl, extraBody: c.extraBody }),
    ...targets.flatMap((t) => secretValues({ apiKey: t.apiKey, headers: t.headers, baseUrl: t.baseUrl })),
  ]);
  const driver = createRealDriver(c, headers, backendOf(c), redact, targets, { livePool: opts.liveLoad, embedded: opts.embedded });
  const server = serverMetricsSources(c, headers, redact);
  const sources = (t: Parameters<typeof server>[0]) => [...server(t), ...gpuSources(c)];
  return runLifecycle({ config: c, tokenizer, driver, configMeta: redactedConfig(c, headers), redact, sources, ladder }, opts);
}
