// The validation ladder (the first step of every run unless --no-validate): one request, then a small concurrent stage,
// each response checked for shape, streaming, usage and token counts, before any load is sent; a failed step stops the
// run (exit 4), a transient failure is retried (docs/commands/run.md#the-validation-ladder).
import type { Backend } from '../backends/backend.js';
import type { RequestSpec } from '../dataset/types.js';
import { SseParser } from '../backends/sse.js';
import { TokenfloodError } from '../errors.js';
import type { ProxyChoice } from '../backends/proxy.js';
import type { Dispatcher } from 'undici';
import { stripControls } from '../util/terminal-text.js';

/** Requests in flight in the ladder's second step: enough to show a server batching, far from a load. */
export const LADDER_STAGE_CONCURRENCY = 4;
/** Output tokens each ladder request asks for: more than one chunk to stream, cheap on any server. */
export const LADDER_MAX_TOKENS = 8;
/** Times a request that failed transiently (no response, HTTP 429/408/5xx) is sent again before its step fails. */
export const LADDER_RETRIES = 3;
/** Wait before retry k (0-based) without a Retry-After: 250 ms, 500 ms, 1 s. */
export const ladderBackoffMs = (k: number): number => 250 * 2 ** k;
/** The longest a ladder request may take (less when --timeout is shorter): 16 tokens take seconds on any live server. */
export const LADDER_TIMEOUT_MS = 60_000;
/** The longest Retry-After the ladder honours before a retry; a longer one waits this long. */
export const LADDER_MAX_RETRY_WAIT_MS = 10_000;

export type Verdict = 'pass' | 'warn' | 'fail';

/** One check of one response: its name, verdict and what was seen. */
export interface LadderCheck {
  check: 'http' | 'shape' | 'streaming' | 'usage' | 'output_tokens' | 'input_tokens';
  verdict: Verdict;
  detail: string;
}

export interface LadderStep {
  step: 'single' | 'stage';
  requests: number;
  verdict: Verdict;
  /** The worst verdict per check over the step's requests (the first request's detail at that verdict). */
  checks: LadderCheck[];
  ms: number;
  /** Requests sent again after a transient failure (each also counted in `requests` once). */
  retries: number;
  /** What the retried requests got (at most 5), e.g. `HTTP 503: overloaded`. */
  retried?: string[];
}

/** run.json / summary.json `run.validation`. */
export interface LadderResult {
  verdict: Verdict;
  steps: LadderStep[];
  /** A later run of the same command (--runs N, --short-baseline, a sweep point after the first): the ladder was climbed once, before the first. */
  reused?: true;
  /** Stopped (Ctrl-C, SIGTERM) while climbing: a failed check then says nothing about the server. */
  interrupted?: true;
  /** Several endpoints: each one's ladder (its `target` name); `steps` then holds them all in order. */
  target?: string;
  targets?: LadderResult[];
}

/** `run.validation` of a run that did not climb the ladder, and why (--no-validate, a shard other than 0). */
export interface LadderSkipped {
  verdict: 'skipped';
  reason: string;
  steps: [];
}

/** The ladder stopped the run: exit 4, with the verdicts (printed with --json). */
export class ValidationError extends TokenfloodError {
  constructor(readonly result: LadderResult) {
    const failed = result.steps.find((s) => s.verdict === 'fail')!;
    const why = failed.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.check}: ${c.detail}`);
    const retried = failed.retries ? ` after ${failed.retries} ${failed.retries === 1 ? 'retry' : 'retries'}` : '';
    super('E_VALIDATION', `validation ladder: the ${failed.step === 'single' ? 'single request' : `stage of ${failed.requests} concurrent requests`} failed${retried} (${why.join('; ')}); no load was sent (docs/commands/run.md#the-validation-ladder; --no-validate skips the ladder)`);
    this.name = 'ValidationError';
  }
}

export interface LadderTarget {
  url: string;
  headers: Record<string, string>;
  model: string;
  backend: Backend;
  stream: boolean;
  ignoreEos: boolean;
  timeoutMs: number;
  /** The probe request (a short prompt, LADDER_MAX_TOKENS out) and its client-side input count. */
  spec: RequestSpec;
  /** The proxy the run goes through (HTTP_PROXY/HTTPS_PROXY/NO_PROXY): the ladder takes the same way. */
  proxy?: ProxyChoice | null;
  /** Set by runLadder: the proxied dispatcher its probes share. */
  dispatcher?: Dispatcher;
  /** The run's redactor: servers echo credentials in error bodies, and every detail is printed and stored. */
  redact?: (s: string) => string;
}

const rank: Record<Verdict, number> = { pass: 0, warn: 1, fail: 2 };
export const worst = (vs: Verdict[]): Verdict => vs.reduce<Verdict>((a, v) => (rank[v] > rank[a] ? v : a), 'pass');

/** One probe's checks; `transient` when it failed in a way a healthy but busy server can (see transientStatus). */
export interface Probe {
  checks: LadderCheck[];
  transient: boolean;
  /** The server's Retry-After, in ms, when it sent one. */
  retryAfterMs?: number;
}

/**
 * Statuses a healthy server sends under load or while restarting: 408, 429 and every 5xx. Any other status (400, 401,
 * 403, 404, 422, ...) says the server or the config is wrong, and sending it again cannot help.
 */
export const transientStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

/** Retry-After in seconds or as an HTTP date → ms from now; undefined when absent or unreadable. */
function retryAfterMs(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = Number(v);
  const ms = Number.isFinite(s) ? s * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/**
 * Send one probe and judge it. Never throws: a transport failure (refused, reset, timeout) is the `http` check failing,
 * transiently unless the run itself was stopped.
 */
export async function probe(t: LadderTarget, signal?: AbortSignal): Promise<Probe> {
  const body = JSON.stringify(t.backend.buildBody(t.spec, { model: t.model, stream: t.stream, ignoreEos: t.ignoreEos }));
  const lost = (what: string, e: unknown): Probe => ({ checks: [{ check: 'http', verdict: 'fail', detail: `${what}: ${(e as Error).message}` }], transient: !signal?.aborted });
  let res: Response;
  let text: string;
  try {
    const init = { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body, signal: AbortSignal.any([AbortSignal.timeout(t.timeoutMs), ...(signal ? [signal] : [])]) };
    // Through a proxy: undici's own fetch with the proxied dispatcher (Node's global fetch ignores HTTP_PROXY).
    res = t.dispatcher ? ((await (await import('undici')).fetch(t.url, { ...init, dispatcher: t.dispatcher })) as unknown as Response) : await fetch(t.url, init);
  } catch (e) {
    return lost('no response', e);
  }
  try {
    text = await res.text();
  } catch (e) {
    return lost(`HTTP ${res.status}, then the connection was lost while reading the body`, e);
  }
  if (res.status !== 200)
    return { checks: [{ check: 'http', verdict: 'fail', detail: `HTTP ${res.status}: ${text.slice(0, 200)}` }], transient: transientStatus(res.status), retryAfterMs: retryAfterMs(res.headers.get('retry-after')) };
  const events: string[] = [];
  const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (sse) {
    const p = new SseParser((ev) => void (ev.type === 'data' && events.push(ev.data)));
    p.push(new TextEncoder().encode(text));
    p.end();
  } else if (t.stream && t.backend.framing === 'ndjson') events.push(...text.split('\n').filter((l) => l.trim()));
  else events.push(text);
  return { checks: judge(t, events, sse), transient: false };
}

/** The checks of one complete response, from its data events (one event for a non-streamed body). */
export function judge(t: Pick<LadderTarget, 'stream' | 'ignoreEos' | 'spec' | 'backend'>, events: readonly string[], sse: boolean): LadderCheck[] {
  const out: LadderCheck[] = [{ check: 'http', verdict: 'pass', detail: 'HTTP 200' }];
  let content = 0;
  let bad = 0;
  let error: string | null = null;
  let usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | null = null;
  for (const d of events) {
    const info = t.backend.classifyData(d);
    if (info.kind === 'x' && info.error) error ??= info.error;
    if (info.kind === 'x') bad++;
    if (info.answer || info.reasoning) content++;
    if (info.usage) usage = info.usage;
  }
  const shapeOk = !error && bad === 0 && content > 0;
  out.push({ check: 'shape', verdict: shapeOk ? 'pass' : 'fail', detail: error ? `error in the body: ${error.slice(0, 200)}` : bad ? `${bad} event(s) not understood as ${t.backend.kind}` : content ? `${content} content event(s)` : 'no generated text' });
  if (t.stream) {
    const ok = sse || t.backend.framing === 'ndjson';
    out.push({ check: 'streaming', verdict: ok && content > 1 ? 'pass' : 'fail', detail: !ok ? 'asked for a stream, got one JSON body (the server ignored "stream": true)' : `${content} content chunk(s)${content > 1 ? '' : ': a stream must carry more than one'}` });
  }
  const pt = typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : undefined;
  const ct = typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : undefined;
  if (pt === undefined || ct === undefined) {
    out.push({ check: 'usage', verdict: 'warn', detail: 'no usage in the response: token counts will come from the client tokenizer (docs/metrics.md#token-counts)' });
    return out;
  }
  out.push({ check: 'usage', verdict: 'pass', detail: `prompt_tokens ${pt}, completion_tokens ${ct}` });
  const max = t.spec.maxTokens;
  out.push(
    ct > max
      ? { check: 'output_tokens', verdict: 'fail', detail: `${ct} tokens for max_tokens ${max}: the server does not honour max_tokens` }
      : t.ignoreEos && ct < max
        ? { check: 'output_tokens', verdict: 'warn', detail: `${ct} of max_tokens ${max} with ignore_eos: the server stops early (ignore_eos unsupported?), so output lengths will not be the workload's` }
        : { check: 'output_tokens', verdict: 'pass', detail: `${ct} of max_tokens ${max}${t.ignoreEos ? ' (ignore_eos honoured)' : ''}` },
  );
  // The server adds its chat template's tokens: within +64 (or ±25%) of the client's count is the same prompt.
  const client = t.spec.inputTokens;
  const off = pt - client;
  out.push({
    check: 'input_tokens',
    verdict: off >= -Math.max(2, client * 0.25) && off <= Math.max(64, client * 0.25) ? 'pass' : 'warn',
    detail: `server ${pt}, client ${client} (${off >= 0 ? '+' : ''}${off}: the chat template and tokenizer differences)`,
  });
  return out;
}

/** Fold several responses' checks into one step: the worst verdict per check. */
function step(name: LadderStep['step'], all: LadderCheck[][], ms: number, retried: string[]): LadderStep {
  const byCheck = new Map<LadderCheck['check'], LadderCheck>();
  for (const checks of all) for (const c of checks) {
    const seen = byCheck.get(c.check);
    if (!seen || rank[c.verdict] > rank[seen.verdict]) byCheck.set(c.check, c);
  }
  const checks = [...byCheck.values()];
  return { step: name, requests: all.length, verdict: worst(checks.map((c) => c.verdict)), checks, ms: Math.round(ms), retries: retried.length, ...(retried.length ? { retried: retried.slice(0, 5) } : {}) };
}

/** Resolves after `ms`, or at once when the run is stopped. */
const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((done) => {
    const t = setTimeout(finish, ms);
    function finish() {
      clearTimeout(t);
      signal?.removeEventListener('abort', finish);
      done();
    }
    signal?.addEventListener('abort', finish, { once: true });
  });

/**
 * One step: `n` probes at once. A probe that failed transiently is sent again (only it, after a back-off or the
 * server's Retry-After) up to LADDER_RETRIES times, so a server failing a few percent of requests does not stop a run
 * by chance; a failure that is not transient ends the step at once, and so does a stopped run.
 */
async function climbStep(name: LadderStep['step'], n: number, t: LadderTarget, signal?: AbortSignal): Promise<LadderStep> {
  const t0 = performance.now();
  const judged: LadderCheck[][] = [];
  const retried: string[] = [];
  let pending = n;
  for (let attempt = 0; ; attempt++) {
    const got = await Promise.all(Array.from({ length: pending }, () => probe(t, signal)));
    const again = got.filter((p) => p.transient);
    const final = got.filter((p) => !p.transient);
    judged.push(...final.map((p) => p.checks));
    const hard = final.some((p) => p.checks.some((c) => c.verdict === 'fail'));
    if (!again.length || hard || attempt === LADDER_RETRIES || signal?.aborted) {
      judged.push(...again.map((p) => p.checks));
      break;
    }
    retried.push(...again.map((p) => p.checks[0].detail.slice(0, 120)));
    const asked = Math.max(...again.map((p) => p.retryAfterMs ?? 0));
    await pause(Math.min(LADDER_MAX_RETRY_WAIT_MS, Math.max(ladderBackoffMs(attempt), asked)), signal);
    pending = again.length;
  }
  // Details quote the server (bodies, error messages): no terminal control characters, no echoed credentials.
  const clean = (x: string) => stripControls(t.redact ? t.redact(x) : x);
  return step(name, judged.map((checks) => checks.map((c) => ({ ...c, detail: clean(c.detail) }))), performance.now() - t0, retried.map(clean));
}

/**
 * The ladder: one request, then LADDER_STAGE_CONCURRENCY at once; `say` gets one line per step. A failed step ends the
 * ladder and throws ValidationError (carrying the verdicts); warnings do not stop it.
 */
export async function runLadder(target: LadderTarget, say: (line: string) => void, signal?: AbortSignal): Promise<LadderResult> {
  const dispatcher = target.proxy ? (await import('../backends/undici-agents.js')).proxyAgent(target.proxy) : undefined;
  const t: LadderTarget = { ...target, timeoutMs: Math.min(target.timeoutMs, LADDER_TIMEOUT_MS), dispatcher };
  const steps: LadderStep[] = [];
  try {
    steps.push(await climbStep('single', 1, t, signal));
    say(stepLine(steps[0]));
    if (steps[0].verdict !== 'fail') {
      steps.push(await climbStep('stage', LADDER_STAGE_CONCURRENCY, t, signal));
      say(stepLine(steps[1]));
    }
  } finally {
    await t.dispatcher?.close().catch(() => {});
  }
  const result: LadderResult = { verdict: worst(steps.map((s) => s.verdict)), steps, ...(signal?.aborted ? { interrupted: true as const } : {}) };
  // Stopped (Ctrl-C) during the ladder: not the server's fault; the run ends as interrupted, with no load sent.
  if (result.verdict === 'fail' && !signal?.aborted) throw new ValidationError(result);
  return result;
}

/** `validate 1/2 single request: pass (312 ms) http pass, shape pass, …` with the details of what did not pass. */
export function stepLine(s: LadderStep): string {
  const n = s.step === 'single' ? '1/2 one request' : `2/2 ${s.requests} concurrent requests`;
  const notes = s.checks.filter((c) => c.verdict !== 'pass').map((c) => `${c.check} ${c.verdict.toUpperCase()}: ${c.detail}`);
  const retried = s.retries ? `; ${s.retries} sent again after a transient failure (${s.retried![0]})` : '';
  return `validate ${n}: ${s.verdict.toUpperCase()} (${s.ms} ms; ${s.checks.map((c) => `${c.check} ${c.verdict}`).join(', ')}${retried})${notes.length ? `\n  ${notes.join('\n  ')}` : ''}`;
}
