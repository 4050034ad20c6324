// The validation ladder (run --validate): one request, then a small concurrent stage, each response checked for shape,
// streaming, usage and token counts, before any load is sent; a failed step stops the run (exit 4, docs/commands/run.md).
import type { Backend } from '../backends/backend.js';
import type { RequestSpec } from '../dataset/types.js';
import { SseParser } from '../backends/sse.js';
import { TokenfloodError } from '../errors.js';

/** Requests in flight in the ladder's second step: enough to show a server batching, far from a load. */
export const LADDER_STAGE_CONCURRENCY = 4;
/** Output tokens each ladder request asks for: more than one chunk to stream, cheap on any server. */
export const LADDER_MAX_TOKENS = 16;

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
}

/** run.json / summary.json `run.validation`. */
export interface LadderResult {
  verdict: Verdict;
  steps: LadderStep[];
  /** Several endpoints: each one's ladder (its `target` name); `steps` then holds them all in order. */
  target?: string;
  targets?: LadderResult[];
}

/** The ladder stopped the run: exit 4, with the verdicts (printed with --json). */
export class ValidationError extends TokenfloodError {
  constructor(readonly result: LadderResult) {
    const failed = result.steps.find((s) => s.verdict === 'fail')!;
    const why = failed.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.check}: ${c.detail}`);
    super('E_VALIDATION', `--validate: the ${failed.step === 'single' ? 'single request' : `stage of ${failed.requests} concurrent requests`} failed (${why.join('; ')}); no load was sent (docs/commands/run.md#the-validation-ladder)`);
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
}

const rank: Record<Verdict, number> = { pass: 0, warn: 1, fail: 2 };
const worst = (vs: Verdict[]): Verdict => vs.reduce<Verdict>((a, v) => (rank[v] > rank[a] ? v : a), 'pass');

/** Send one probe and judge it. Never throws: a transport failure is the `http` check failing. */
export async function probeOnce(t: LadderTarget, signal?: AbortSignal): Promise<LadderCheck[]> {
  const body = JSON.stringify(t.backend.buildBody(t.spec, { model: t.model, stream: t.stream, ignoreEos: t.ignoreEos }));
  let res: Response;
  try {
    res = await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body, signal: AbortSignal.any([AbortSignal.timeout(t.timeoutMs), ...(signal ? [signal] : [])]) });
  } catch (e) {
    return [{ check: 'http', verdict: 'fail', detail: `no response: ${(e as Error).message}` }];
  }
  const text = await res.text().catch((e: Error) => `\u0000${e.message}`);
  if (res.status !== 200) return [{ check: 'http', verdict: 'fail', detail: `HTTP ${res.status}: ${text.slice(0, 200)}` }];
  const events: string[] = [];
  const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (sse) {
    const p = new SseParser((ev) => void (ev.type === 'data' && events.push(ev.data)));
    p.push(new TextEncoder().encode(text));
    p.end();
  } else if (t.stream && t.backend.framing === 'ndjson') events.push(...text.split('\n').filter((l) => l.trim()));
  else events.push(text);
  return judge(t, events, sse);
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
function step(name: LadderStep['step'], all: LadderCheck[][], ms: number): LadderStep {
  const byCheck = new Map<LadderCheck['check'], LadderCheck>();
  for (const checks of all) for (const c of checks) {
    const seen = byCheck.get(c.check);
    if (!seen || rank[c.verdict] > rank[seen.verdict]) byCheck.set(c.check, c);
  }
  const checks = [...byCheck.values()];
  return { step: name, requests: all.length, verdict: worst(checks.map((c) => c.verdict)), checks, ms: Math.round(ms) };
}

/**
 * The ladder: one request, then LADDER_STAGE_CONCURRENCY at once; `say` gets one line per step. A failed step ends the
 * ladder and throws ValidationError (carrying the verdicts); warnings do not stop it.
 */
export async function runLadder(t: LadderTarget, say: (line: string) => void, signal?: AbortSignal): Promise<LadderResult> {
  const steps: LadderStep[] = [];
  const t0 = performance.now();
  steps.push(step('single', [await probeOnce(t, signal)], performance.now() - t0));
  say(stepLine(steps[0]));
  if (steps[0].verdict !== 'fail') {
    const t1 = performance.now();
    const all = await Promise.all(Array.from({ length: LADDER_STAGE_CONCURRENCY }, () => probeOnce(t, signal)));
    steps.push(step('stage', all, performance.now() - t1));
    say(stepLine(steps[1]));
  }
  const result: LadderResult = { verdict: worst(steps.map((s) => s.verdict)), steps };
  if (result.verdict === 'fail') throw new ValidationError(result);
  return result;
}

/** `validate 1/2 single request: pass (312 ms) http pass, shape pass, …` with the details of what did not pass. */
export function stepLine(s: LadderStep): string {
  const n = s.step === 'single' ? '1/2 one request' : `2/2 ${s.requests} concurrent requests`;
  const notes = s.checks.filter((c) => c.verdict !== 'pass').map((c) => `${c.check} ${c.verdict.toUpperCase()}: ${c.detail}`);
  return `validate ${n}: ${s.verdict.toUpperCase()} (${s.ms} ms; ${s.checks.map((c) => `${c.check} ${c.verdict}`).join(', ')})${notes.length ? `\n  ${notes.join('\n  ')}` : ''}`;
}
