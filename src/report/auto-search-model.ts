// The report model of an --auto rate profile or SLO search (sweep.json `auto_search`), read by every sweep reporter.

/** 'concurrency' | 'rate', as sweep-model's LoadMode (spelled out here: that module imports this one). */
type LoadMode = 'concurrency' | 'rate';

/** Why a point is in an --auto sweep beyond being one of its levels: the open-loop profile's probes. */
/** A point's part in an --auto sweep: a rate profile's probes, or a --then-grid point around the knee. */
export type AutoRole = 'synchronous' | 'throughput' | 'grid';

/** One objective a search run missed, and by how much. */
export interface SloMiss {
  /** The objective (`ttft_p99`, `error_rate`, …), `max_error_rate` for the sweep's error threshold, or `ok_requests` when none succeeded. */
  name: string;
  op: '<=' | '>=';
  limit: number;
  /** Null when the run has no value for it (no successful request). */
  actual: number | null;
  /** ms, tok/s, ratio or requests; a registered metric's own unit (docs/architecture.md#metrics-registry). */
  unit: 'ms' | 'tok/s' | 'ratio' | 'requests' | (string & {});
  /** How far past the limit, relative to it: (actual − limit) / limit for `<=`, (limit − actual) / limit for `>=`; null without an actual or with a 0 limit. */
  excess: number | null;
}

/** One run of a search: its point, load and verdict. */
export interface AutoSearchStep {
  point: string;
  mode: LoadMode;
  load: number;
  role: AutoRole | null;
  /** Met every SLO and the error threshold (null for a profile run without SLOs). */
  passed: boolean | null;
  /** The objectives it missed (empty when it passed). */
  failed: SloMiss[];
}

/** `--auto --slo`: the highest load meeting every SLO, by bracketing and bisection. */
export interface SloSearchReport {
  goal: 'slo';
  mode: LoadMode;
  /** Runs the search made for this pair, the synchronous probe of a rate search included. */
  runs: number;
  /** [highest passing load, lowest failing load]; either is null when no such load was measured. */
  bracket: [number | null, number | null];
  /** The stopping precision: `{kind: 'absolute', value: 1}` (concurrency) or `{kind: 'relative', value: 0.05}` (rate), from --auto-precision. */
  precision_target: { kind: 'absolute' | 'relative'; value: number };
  /** Width of the final bracket, absolute (load units) and relative to its lower end; null while it is open on one side. */
  precision_reached: { absolute: number; relative: number | null } | null;
  /** The bracket is within the target (or no load fits inside it). */
  converged: boolean;
  /** precision | resolution | max_runs | max_load_passes | min_load_fails | probe_failed | ended_early. */
  stop: string;
  steps: AutoSearchStep[];
}

/** Open-loop `--auto` without SLOs (GuideLLM's sweep): a synchronous probe, a throughput run, rates in between. */
export interface RateProfileReport {
  goal: 'profile';
  mode: 'rate';
  runs: number;
  /** Request rate (ok req/s) of the synchronous probe (concurrency 1) and of the throughput run (--max-concurrency); null when not measured. */
  synchronous_rate: number | null;
  max_rate: number | null;
  /** The open-loop rates chosen between them. */
  rates: number[];
  steps: AutoSearchStep[];
}

export type AutoSearchReport = SloSearchReport | RateProfileReport;

const shown = (x: number | null, unit: SloMiss['unit']): string =>
  x === null ? 'n/a' : unit === 'ratio' ? `${(x * 100).toFixed(2)}%` : unit === 'requests' ? String(x) : `${x >= 100 ? x.toFixed(0) : x.toFixed(2)} ${unit}`;

/** A miss in words, e.g. "ttft_p99 167 ms > 100 ms (67.2% over)". */
export function describeMiss(m: SloMiss): string {
  const by = m.excess === null ? '' : ` (${(m.excess * 100).toFixed(1)}% ${m.op === '<=' ? 'over' : 'under'})`;
  return `${m.name} ${shown(m.actual, m.unit)} ${m.op === '<=' ? '>' : '<'} ${shown(m.limit, m.unit)}${by}`;
}
