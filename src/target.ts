// The target server: the user's URL, or the embedded simulated server; plus the preflight that finds the model.
import type { GetClient, GetResponse } from './backends/http-get.js';
import { TokenfloodError, UsageError } from './errors.js';
import { joinUrl, redactUrl } from './util/url.js';
import { EMBEDDED_SIM_FLAGS, EMBEDDED_SIM_KEYS, embeddedServerOptions, type EmbeddedSimOptions } from './config/embedded-sim.js';
import type { EmbeddedServer } from './sim/embedded.js';

export interface Target {
  baseUrl: string;
  embedded: boolean;
  /** Where the embedded server runs (see src/sim/embedded.ts); null for the user's server. */
  isolation: 'process' | 'in-process' | null;
  close(): Promise<void>;
}

/** The user's server, or the embedded simulated server counting tokens with the run's tokenizer (so usage matches). */
export async function openTarget(
  baseUrl: string | undefined,
  tokenizer?: string,
  sim: Partial<EmbeddedSimOptions> & { requestIdHeader?: string; sessionHeader?: string; maxInputTokens?: number; maxOutputTokens?: number } = {},
): Promise<Target> {
  if (baseUrl) return { baseUrl: joinUrl(baseUrl, ''), embedded: false, isolation: null, close: async () => {} };
  // The embedded server echoes the run's request id header, whatever its name.
  // Its session router (--sim-router session) reads the header the run sends (--session-header).
  // It enforces the vendor caps the run declares (--max-input-tokens, --max-output-tokens).
  const caps = { ...(sim.maxInputTokens !== undefined ? { maxInputTokens: sim.maxInputTokens } : {}), ...(sim.maxOutputTokens !== undefined ? { maxOutputTokens: sim.maxOutputTokens } : {}) };
  const server = await startEmbeddedServer(sim, { tokenizer, ...caps, ...(sim.requestIdHeader ? { requestIdHeader: sim.requestIdHeader } : {}), ...(sim.sessionHeader ? { sessionHeader: sim.sessionHeader } : {}) });
  return { baseUrl: server.baseUrl, embedded: true, isolation: server.isolation, close: () => server.close() };
}

/**
 * Start the embedded server with the --sim-* values; a bad value (unknown GPU or model profile) is a UsageError
 * naming the --sim-* flags given, since the server's own message speaks of its --gpu/--model-profile.
 */
export async function startEmbeddedServer(o: Partial<EmbeddedSimOptions>, extra: { tokenizer?: string; requestIdHeader?: string; sessionHeader?: string; maxInputTokens?: number; maxOutputTokens?: number } = {}): Promise<EmbeddedServer> {
  const { startEmbeddedSimServer } = await import('./sim/embedded.js');
  try {
    return await startEmbeddedSimServer({ port: 0, ...extra, ...embeddedServerOptions(o) });
  } catch (e) {
    const given = EMBEDDED_SIM_KEYS.filter((k) => o[k] !== undefined).map((k) => EMBEDDED_SIM_FLAGS[k].name);
    if (e instanceof UsageError && given.length) throw new UsageError(e.problems.map((p) => `${given.join(', ')}: ${p}`));
    throw e;
  }
}

export interface Preflight {
  model: string;
  models: string[];
  /** x-tokenflood-time-scale of a simulated server, when the target is one. */
  simTimeScale: number | undefined;
  /** max_model_len of the chosen model as /models lists it (vLLM, SGLang), null when not listed. */
  maxModelLen: number | null;
}

/** The whole preflight (headers and body of GET /models) must finish within this, however slowly a server dribbles. */
export const PREFLIGHT_DEADLINE_MS = 15_000;

/** A /models listing larger than this is not read further (it is only used to pick a default model). */
const MAX_MODELS_BYTES = 4 << 20;

export interface PreflightOptions {
  /** Abort (Ctrl-C) to give up at once: the preflight rejects with E_INTERRUPTED. */
  signal?: AbortSignal;
  deadlineMs?: number;
  /** Applied to the transport's error text before it goes into a message (it may quote what was sent). */
  redact?: (text: string) => string;
}

/**
 * GET {base}/models before anything is sent: proves the server is reachable and names the default model.
 * Unreachable servers and rejected credentials are errors (exit 2); a missing /models is fine when --model is given.
 */
export async function preflight(baseUrl: string, headers: Record<string, string>, model: string | undefined, client: GetClient, opts: PreflightOptions = {}): Promise<Preflight> {
  const deadlineMs = opts.deadlineMs ?? PREFLIGHT_DEADLINE_MS;
  const shown = redactUrl(baseUrl);
  const modelsUrl = joinUrl(baseUrl, '/models');
  // One controller for both the deadline and the caller's signal (AbortSignal.any needs Node 20.3).
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => ((timedOut = true), stop.abort()), deadlineMs);
  const onAbort = () => stop.abort();
  if (opts.signal?.aborted) stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const failed = (e: unknown): TokenfloodError => {
    if (opts.signal?.aborted) return new TokenfloodError('E_INTERRUPTED', `interrupted during the preflight (GET ${redactUrl(modelsUrl)}); no request was sent`);
    if (timedOut)
      return new TokenfloodError('E_UNREACHABLE', `the server at ${shown} did not answer GET /models within ${deadlineMs / 1000} s (headers and body)`);
    const err = e as { code?: string; message?: string };
    const why = (opts.redact ?? ((t: string) => t))(`${err.code ?? ''} ${err.message ?? String(e)}`);
    return new TokenfloodError('E_UNREACHABLE', `cannot reach the server at ${shown}: ${why}`.replace(/\s+/g, ' ').trim());
  };
  let res: GetResponse;
  try {
    // The deadline is this function's own timer (timedOut tells it apart); the client's, a little later, only backs it up.
    res = await client.get(modelsUrl, { headers, deadlineMs: deadlineMs + 1000, maxBytes: MAX_MODELS_BYTES, signal: stop.signal });
  } catch (e) {
    throw failed(e);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
  const { status, text } = res;
  const scaleHeader = res.headers['x-tokenflood-time-scale'];
  const simTimeScale = scaleHeader !== undefined ? Number(scaleHeader) : undefined;
  if (status === 401 || status === 403)
    throw new UsageError([`--api-key: the server at ${shown} rejected the credentials (HTTP ${status})`]);
  let models: string[] = [];
  let listed: { id?: unknown; max_model_len?: unknown }[] = [];
  if (status >= 200 && status < 300) {
    try {
      listed = (JSON.parse(text) as { data?: { id?: unknown }[] }).data ?? [];
      if (!Array.isArray(listed)) listed = [];
      models = listed.map((m) => m?.id).filter((x): x is string => typeof x === 'string');
    } catch {
      models = [];
    }
  }
  const chosen = model ?? models[0];
  const mml = listed.find((m) => m?.id === chosen)?.max_model_len;
  if (!chosen)
    throw new UsageError([
      `--model: not given, and GET ${redactUrl(modelsUrl)} ${status >= 300 ? `failed with HTTP ${status}` : 'listed no model'}; pass --model NAME`,
    ]);
  return { model: chosen, models, simTimeScale, maxModelLen: typeof mml === 'number' && Number.isFinite(mml) ? mml : null };
}
