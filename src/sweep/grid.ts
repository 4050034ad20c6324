// The sweep grid: list parsing ("1,2,4", "256x256") and the points a sweep runs, one per load × input/output pair.
import { isAsConfigured, type InputOutput, type LoadMode } from '../report/sweep-model.js';

export { isAsConfigured, pairLabel, rowPairLabel, type InputOutput, type LoadMode } from '../report/sweep-model.js';

export const AS_CONFIGURED: InputOutput = { input: 0, output: 0 };

/** One run of a sweep. `requests`/`durationS` undefined means the run's own default. */
export interface PointSpec {
  /** Directory name under points/, e.g. "c8-in256-out256". */
  name: string;
  mode: LoadMode;
  /** Concurrency (closed loop) or requests per second (open loop). */
  load: number;
  inputTokens: number;
  outputTokens: number;
  requests?: number;
  durationS?: number;
}

/** "1,2,4" | 4 | [1, 2] → numbers (NaN for unreadable items, so the schema can report them). */
export function parseNumberList(v: unknown): number[] {
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? x : Number(String(x).trim())));
  if (typeof v === 'number') return [v];
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  return [NaN];
}

/** "256x256" | {input, output} → InputOutput, or undefined when unreadable. */
export function parseInputOutput(v: unknown): InputOutput | undefined {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const input = Number(o.input ?? o.input_tokens ?? o.inputTokens);
    const output = Number(o.output ?? o.output_tokens ?? o.outputTokens);
    return Number.isInteger(input) && input > 0 && Number.isInteger(output) && output > 0 ? { input, output } : undefined;
  }
  const m = /^\s*(\d+)\s*[xX×]\s*(\d+)\s*$/.exec(String(v));
  if (!m) return undefined;
  const io = { input: Number(m[1]), output: Number(m[2]) };
  return io.input > 0 && io.output > 0 ? io : undefined;
}

/** "256x256,2048x128" or a list → pairs; unreadable items are returned in `bad`. */
export function parseInputOutputList(v: unknown): { pairs: InputOutput[]; bad: string[] } {
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').filter((s) => s.trim()) : [v];
  const pairs: InputOutput[] = [];
  const bad: string[] = [];
  for (const it of items) {
    const io = parseInputOutput(it);
    if (io) pairs.push(io);
    else bad.push(typeof it === 'string' ? it : JSON.stringify(it));
  }
  return { pairs, bad };
}

const loadLabel = (mode: LoadMode, load: number): string => `${mode === 'concurrency' ? 'c' : 'r'}${String(load).replace(/[^0-9.]/g, '')}`;

export function pointName(mode: LoadMode, load: number, io: InputOutput): string {
  return isAsConfigured(io) ? loadLabel(mode, load) : `${loadLabel(mode, load)}-in${io.input}-out${io.output}`;
}

/**
 * Requests per point when neither a count nor a duration is given: at least 100 and at least
 * four full waves at the point's concurrency (so the steady state dominates the ramp-up and drain).
 */
export function defaultRequests(mode: LoadMode, load: number): number {
  return mode === 'concurrency' ? Math.max(100, 4 * load) : 100;
}

export interface LoadStep {
  load: number;
  requests?: number;
  durationS?: number;
}

export function makePoint(mode: LoadMode, step: LoadStep, io: InputOutput): PointSpec {
  const requests = step.requests ?? (step.durationS === undefined ? defaultRequests(mode, step.load) : undefined);
  return { name: pointName(mode, step.load, io), mode, load: step.load, inputTokens: io.input, outputTokens: io.output, requests, durationS: step.durationS };
}

/** The full grid: every load step crossed with every input/output pair, pairs outermost. */
export function buildGrid(mode: LoadMode, steps: readonly LoadStep[], pairs: readonly InputOutput[]): PointSpec[] {
  const out: PointSpec[] = [];
  for (const io of pairs) for (const s of steps) out.push(makePoint(mode, s, io));
  return out;
}
