// Fault injection, table-driven: each kind has a zod schema and a trigger (probability `rate` and/or `every` Nth request).
import { z } from 'zod';
import type { Rng } from '../../util/rng.js';
import { MAX_TIMER_MESSAGE, MAX_TIMER_MS } from '../../util/timer.js';

const trigger = {
  /** Probability per request, 0..1. */
  rate: z.number().min(0).max(1).optional(),
  /** Every Nth request (1-based count of requests to the generation endpoints). */
  every: z.number().int().min(1).optional(),
};

/** Every fault kind, its parameters and what it does (the docs table is generated from the descriptions). */
export const FAULT_KINDS = {
  http429: z.object({ ...trigger, retryAfterSeconds: z.number().int().min(0).default(1) }).describe('reply 429 with a Retry-After header, nothing scheduled'),
  http500: z.object(trigger).describe('reply 500 Internal Server Error'),
  http503: z.object(trigger).describe('reply 503 Service Unavailable'),
  oom: z.object({ ...trigger, fatal: z.boolean().default(false) }).describe('reply 500 with PyTorch\'s "CUDA out of memory" message; `fatal`: the engine dies with it, and every later generation request gets the engineDead reply'),
  engineDead: z.object(trigger).describe('reply 503 with vLLM\'s EngineDeadError message (the engine behind the API server has died)'),
  stall: z.object({ ...trigger, afterTokens: z.number().int().min(0).default(4), ms: z.number().min(0).max(MAX_TIMER_MS, MAX_TIMER_MESSAGE).default(1000) }).describe('hold the stream for `ms` wall-clock ms after `afterTokens` tokens'),
  drop: z.object({ ...trigger, afterTokens: z.number().int().min(0).default(4) }).describe('destroy the socket after `afterTokens` tokens (request aborted in the engine)'),
  malformed: z.object({ ...trigger, afterTokens: z.number().int().min(0).default(2) }).describe('send one SSE event with truncated JSON after `afterTokens` tokens, then carry on'),
  heartbeat: z.object({ ...trigger, intervalMs: z.number().min(1).max(MAX_TIMER_MS, MAX_TIMER_MESSAGE).default(500) }).describe('send the protocol\'s heartbeat every `intervalMs` wall-clock ms while the stream is open: a `: ping` SSE comment, Anthropic Messages an `event: ping`'),
  bigFirstChunk: z.object({ ...trigger, tokens: z.number().int().min(2).default(32) }).describe('hold the first `tokens` tokens and send them as one chunk'),
  neverEnding: z.object(trigger).describe('after the last token never send finish_reason, usage or [DONE]; keep the connection open'),
} as const;

export type FaultKind = keyof typeof FAULT_KINDS;
export const faultOptionsSchema = z.object(
  Object.fromEntries(Object.entries(FAULT_KINDS).map(([k, s]) => [k, s.optional()])) as { [K in FaultKind]: z.ZodOptional<(typeof FAULT_KINDS)[K]> },
).strict();
export type FaultOptions = z.input<typeof faultOptionsSchema>;
type ResolvedFaults = z.output<typeof faultOptionsSchema>;

/** The faults that apply to one request, with their parameters. */
export type ActiveFaults = { [K in FaultKind]?: z.output<(typeof FAULT_KINDS)[K]> };

/**
 * `kind[:rate][,key=value...]` (serve --fault, run --sim-fault), e.g. `http429:0.1,retryAfterSeconds=2`,
 * `stall,every=10,ms=3000`, `oom:0.05,fatal=true`: the kind and its raw parameters (numbers, true/false).
 */
export function parseFaultSpec(spec: string, flag: string, problems: string[]): [FaultKind, Record<string, number | boolean>] | undefined {
  const [head, ...pairs] = spec.split(',');
  const [kind, rate] = head.split(':');
  if (!(kind in FAULT_KINDS)) {
    problems.push(`${flag} ${spec}: unknown fault kind "${kind}": use one of ${Object.keys(FAULT_KINDS).join(', ')}`);
    return undefined;
  }
  const out: Record<string, number | boolean> = {};
  if (rate !== undefined) out.rate = Number(rate);
  for (const p of pairs) {
    const [k, v] = p.split('=');
    if (k && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else if (!k || v === undefined || !Number.isFinite(Number(v))) problems.push(`${flag} ${spec}: "${p}" is not key=number (or key=true/false)`);
    else out[k] = Number(v);
  }
  return [kind as FaultKind, out];
}

/** Which faults fire for request number `n` (1-based). A kind without rate or every never fires. */
export function pickFaults(faults: ResolvedFaults, n: number, rng: Rng): ActiveFaults {
  const out: Record<string, unknown> = {};
  for (const kind of Object.keys(FAULT_KINDS) as FaultKind[]) {
    const f = faults[kind];
    if (!f) continue;
    const byEvery = f.every !== undefined && n % f.every === 0;
    const byRate = f.rate !== undefined && f.rate > 0 && rng.next() < f.rate;
    if (byEvery || byRate) out[kind] = f;
  }
  return out as ActiveFaults;
}

/** PyTorch's allocator message, as vLLM passes it on when a step runs out of GPU memory. */
export const OOM_MESSAGE = 'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free. (tokenflood sim fault injection)';
/** vLLM v1's reply once its engine core process has died. */
export const ENGINE_DEAD_MESSAGE = 'EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause. (tokenflood sim fault injection)';

/** Status-code faults, in the order they are checked. */
export const STATUS_FAULTS = [
  { kind: 'http429', status: 429, message: 'Too many requests (tokenflood sim fault injection)' },
  { kind: 'http500', status: 500, message: 'Internal server error (tokenflood sim fault injection)' },
  { kind: 'http503', status: 503, message: 'Service unavailable (tokenflood sim fault injection)' },
  { kind: 'oom', status: 500, message: OOM_MESSAGE },
  { kind: 'engineDead', status: 503, message: ENGINE_DEAD_MESSAGE },
] as const;
