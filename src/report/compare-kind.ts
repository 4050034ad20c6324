// Whether two compared results measured the same kind of thing: time scale, workload, endpoint, stream, model, tokenizer, load.
import { existsSync, readFileSync } from 'node:fs';
import { ARTIFACTS, artifactPath } from '../artifacts/registry.js';

/** What a run measured, read from its run.json (for a sweep: its first point's run.json). */
export interface RunKind {
  /** Simulated ms per wall-clock ms of a simulated server; null for a real server (or unknown). */
  sim_time_scale: number | null;
  /** Where it ran, in words: "the embedded simulated server", "a simulated server at <url>", "<url>"; null when run.json does not say. */
  server: string | null;
  /** True when the server was a tokenflood simulator (it reported a time scale); null when run.json does not say. */
  sim_server: boolean | null;
  /** True for `simulate` output: predictions on a virtual clock, not measurements. */
  simulated: boolean;
  endpoint: string | null;
  stream: boolean | null;
  model: string | null;
  tokenizer: string | null;
  /** The lengths and prompts sent, in words ("synthetic in 256 out 128", "synthetic mix …", "dataset …"). */
  workload: string | null;
  /** "concurrency 8", "rate 2 req/s" for a run; for a sweep the varied quantity ("by concurrency"), as its points are matched per level. */
  load: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** The workload's description without counters that grow during a run (skipped items, conversations cut short). */
function workloadWords(w: unknown): string | null {
  if (!w || typeof w !== 'object') return null;
  const o = w as Record<string, unknown>;
  const kind = str(o.kind) ?? 'workload';
  if (Array.isArray(o.mix)) {
    const classes = (o.mix as Record<string, unknown>[]).map((k) => `${str(k.class)} ${str(k.weight)} in ${str(k.input)} out ${str(k.output)}`);
    return `${kind} mix (${classes.join('; ')})`;
  }
  const parts = [kind];
  for (const k of ['file', 'path', 'dataset', 'format', 'input_tokens', 'output_tokens', 'prefix_tokens', 'cache_ab'] as const) {
    if (o[k] === undefined || o[k] === null || o[k] === 0 || o[k] === false) continue;
    parts.push(`${k.replace(/_tokens$/, '').replace('_', ' ')} ${typeof o[k] === 'object' ? JSON.stringify(o[k]) : String(o[k])}`);
  }
  return parts.join(' ');
}

/** Printable characters only: run.json is a file on disk, not our own memory. */
const clean = (s: string): string => s.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);

function serverWords(run: Record<string, unknown>): string | null {
  if (run.embedded_server === true) return 'the embedded simulated server';
  const url = typeof run.target_url === 'string' ? clean(run.target_url) : null;
  if (typeof run.sim_time_scale === 'number') return url ? `a simulated server at ${url}` : 'a simulated server';
  return url ? `${url} (not a tokenflood simulator)` : null;
}

export function runKind(run: Record<string, unknown>, sweepMode?: string): RunKind {
  const cfg = (run.config ?? {}) as Record<string, unknown>;
  const scale = run.sim_time_scale;
  const load = sweepMode
    ? `by ${sweepMode}`
    : typeof cfg.rate === 'number'
      ? `rate ${cfg.rate} req/s`
      : typeof cfg.concurrency === 'number'
        ? `concurrency ${cfg.concurrency}`
        : null;
  return {
    sim_time_scale: typeof scale === 'number' ? scale : null,
    server: serverWords(run),
    sim_server: 'sim_time_scale' in run ? typeof scale === 'number' : null,
    simulated: run.simulated === true,
    endpoint: str(run.endpoint),
    stream: typeof run.stream === 'boolean' ? run.stream : null,
    model: str(run.model),
    tokenizer: str(run.tokenizer),
    workload: workloadWords(run.workload),
    load,
  };
}

/** run.json of a run directory, or {} when missing or unreadable (older results, hand-made directories). */
export function readRunJson(dir: string): Record<string, unknown> {
  const p = artifactPath(dir, ARTIFACTS.run);
  if (!existsSync(p)) return {};
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

const show = (v: unknown): string => (v === null ? 'unknown' : typeof v === 'string' ? `"${v}"` : String(v));

/**
 * One sentence per way the candidate differs in kind from the baseline. A difference here means the deltas compare
 * settings, not servers: a 20x time-scaled simulator is "faster" than a 5x one without being better.
 * Fields unknown on one side (older results) are not compared.
 */
export function kindWarnings(b: RunKind, c: RunKind): string[] {
  const out: string[] = [];
  // A real server runs on the wall clock, i.e. at 1x: 1 and null are the same clock.
  if ((b.sim_time_scale ?? 1) !== (c.sim_time_scale ?? 1)) {
    const words = (x: number | null) => (x === null ? 'real time (not a time-scaled simulator)' : `${x}x real time`);
    out.push(`time scale differs: baseline ${words(b.sim_time_scale)}, candidate ${words(c.sim_time_scale)}; latencies and throughputs are scaled differently, so the deltas compare clocks, not servers`);
  }
  if (b.sim_server !== null && c.sim_server !== null && b.sim_server !== c.sim_server) {
    const side = (k: RunKind) => k.server ?? (k.sim_server ? 'a simulated server' : 'a real server');
    out.push(`baseline ran on ${side(b)}, candidate against ${side(c)}: one side is a simulator, so the deltas compare a model of a server with a measured one`);
  }
  if (b.simulated !== c.simulated) out.push(`one side is a simulate prediction (virtual clock), the other a measurement`);
  const fields: [keyof RunKind, string][] = [
    ['workload', 'workload differs'],
    ['endpoint', 'endpoint differs'],
    ['stream', 'streaming differs'],
    ['model', 'model differs'],
    ['tokenizer', 'tokenizer differs'],
    ['load', 'load differs'],
  ];
  for (const [k, what] of fields) {
    if (b[k] === null || c[k] === null || b[k] === c[k]) continue;
    out.push(`${what}: baseline ${show(b[k])}, candidate ${show(c[k])}`);
  }
  return out;
}
