// Per-request priority (vLLM's and SGLang's body `priority`, lower runs first): the --priority-mix parser, the seeded
// draw, the workload wrapper that gives each request its priority, and the option checks (docs/workloads.md#request-priority).
import { pickClass } from './mix.js';
import type { RequestSpec } from './types.js';
import type { Workload } from './workload-types.js';
import { createRng } from '../util/rng.js';

/** One priority class of a mix: the body's `priority` and its share of requests (normalised: the shares sum to 1). */
export interface PriorityShare {
  priority: number;
  share: number;
}

/** The protocols whose bodies carry `priority` (vLLM and SGLang read it in OpenAI chat and completions bodies). */
export const PRIORITY_BACKENDS = ['openai-chat', 'openai-completions'] as const;

/** vLLM's priority is a plain int; bounds keep it a safe JSON integer. */
const MAX_ABS_PRIORITY = 2 ** 31 - 1;

/** A data line's `priority`: an integer (or an integer string, as CSV holds it); undefined when absent; a problem string when bad. */
export function dataPriority(v: unknown, name = 'priority'): number | undefined | string {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || Math.abs(n) > MAX_ABS_PRIORITY) return `${name} must be an integer (lower runs first), got ${JSON.stringify(v)}`;
  return n;
}

/**
 * Parse `0:0.2,10:0.8` (PRIORITY:WEIGHT, comma-separated; weights are relative, `%` allowed: `0:20%,10:80%`).
 * Throws one Error naming every bad entry.
 */
export function parsePriorityMix(spec: string): PriorityShare[] {
  const problems: string[] = [];
  const out: { priority: number; weight: number }[] = [];
  for (const raw of spec.split(',')) {
    const s = raw.trim();
    const m = /^([+-]?\d+)\s*:\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)$/.exec(s);
    if (!m) {
      problems.push(s ? `"${s}" is not PRIORITY:WEIGHT (an integer, a colon and a weight, e.g. 0:0.2)` : `empty entry in "${spec}"`);
      continue;
    }
    const priority = Number(m[1]);
    const weight = Number(m[2]);
    if (!Number.isSafeInteger(priority) || Math.abs(priority) > MAX_ABS_PRIORITY) problems.push(`priority ${m[1]} is out of range (±${MAX_ABS_PRIORITY})`);
    else if (out.some((o) => o.priority === priority)) problems.push(`priority ${priority} is given twice`);
    else if (!(weight > 0)) problems.push(`priority ${priority} has weight ${m[2]}${m[3]}: weights must be above 0`);
    else out.push({ priority, weight });
  }
  if (problems.length === 0 && out.length === 0) problems.push('expected PRIORITY:WEIGHT entries such as 0:0.2,10:0.8');
  if (problems.length) throw new Error(problems.join('; '));
  const total = out.reduce((s, o) => s + o.weight, 0);
  return out.map((o) => ({ priority: o.priority, share: o.weight / total }));
}

/**
 * The priority of request `index` (warmup included): u = the first draw of a generator seeded by (seed, index), the
 * class whose cumulative share first exceeds u. Depends on nothing but the seed and the index, so a run, its retries,
 * its shards and `simulate` give every request the same priority.
 */
export function drawPriority(mix: readonly PriorityShare[], seed: number, index: number): number {
  const u = createRng((Math.imul(seed | 0, 0x85ebca6b) ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0).next();
  return mix[pickClass(mix.map((c) => ({ weight: c.share })), u)].priority;
}

/**
 * A workload whose requests carry a priority: the data's own (a dataset or replay line's `priority`) when it gives one,
 * else the mix's draw. The spec is copied, never changed: datasets hand out the same spec object many times. A
 * completion is handed back with the workload's own spec: session replays find a turn's state by its spec object.
 */
export function withPriorityMix(w: Workload, mix: readonly PriorityShare[], seed: number): Workload {
  const originals = new WeakMap<RequestSpec, RequestSpec>();
  const give = (spec: RequestSpec | undefined, index: number): RequestSpec | undefined => {
    if (spec === undefined || spec.priority !== undefined) return spec;
    const copy = { ...spec, priority: drawPriority(mix, seed, index) };
    originals.set(copy, spec);
    return copy;
  };
  return {
    ...w,
    next(index) {
      const s = w.next(index);
      return s instanceof Promise ? s.then((v) => give(v, index)) : give(s, index);
    },
    ...(w.complete
      ? {
          complete: (d) => {
            const own = originals.get(d.spec);
            w.complete!(own ? { ...d, spec: own } : d);
          },
        }
      : {}),
    describe: () => ({ ...w.describe(), priority_mix: mix.map((c) => ({ priority: c.priority, share: c.share })) }),
  };
}

/** --extra-body's `priority` when it is an integer (the run-wide priority of requests that have none of their own). */
export function extraBodyPriority(extraBody: Record<string, unknown> | undefined): number | undefined {
  const p = extraBody?.priority;
  return Number.isSafeInteger(p) ? (p as number) : undefined;
}

/**
 * The `priority` a request's body carries (openai-common.ts commonBody): its own unless withheld, else --extra-body's;
 * none for a backend whose bodies have no priority field (a dataset's priority is then a label only).
 */
export function sentPriority(spec: RequestSpec, c: { prioritySend: boolean; extraBody?: Record<string, unknown>; backend?: string }): number | undefined {
  if (!(PRIORITY_BACKENDS as readonly string[]).includes(c.backend ?? 'openai-chat')) return undefined;
  return c.prioritySend && spec.priority !== undefined ? spec.priority : extraBodyPriority(c.extraBody);
}

/** The option combinations that cannot do what they say: each a message naming the flag. */
export function priorityProblems(c: { priorityMix?: string; prioritySend: boolean; backend?: string; extraBody?: Record<string, unknown> }): string[] {
  const p: string[] = [];
  if (c.priorityMix === undefined) return p;
  const backend = c.backend ?? 'openai-chat';
  if (c.prioritySend && !(PRIORITY_BACKENDS as readonly string[]).includes(backend))
    p.push(`--priority-mix: --backend ${backend} has no per-request priority field (only ${PRIORITY_BACKENDS.join(' and ')} bodies carry "priority"); give --no-priority-send to label requests without sending it`);
  if (c.extraBody && 'priority' in c.extraBody)
    p.push('--priority-mix: --extra-body also sets "priority"; every request gets the mix\'s (or the data\'s) priority, so drop one of the two');
  return p;
}
