// A trace's shape before it is replayed: requests, sessions, turns, lengths, arrival rate over time, subagent fan-out, the cache ceiling.
import { distStats, type DistStats } from '../../metrics/stats.js';
import { histogram, type Bucket } from '../stats.js';
import { cacheCeiling, type CacheCeiling } from './ceiling.js';
import type { TraceLoadSummary, TraceRequest } from './model.js';

export interface ArrivalWindow {
  start_s: number;
  end_s: number;
  requests: number;
  /** requests / (end_s - start_s). */
  rate_per_s: number;
}

export interface TraceStats {
  format: string;
  detected?: string;
  /** Tokens per hash id, when the trace has hash_ids. */
  block_size?: number;
  requests: number;
  /** Requests outside any session. */
  standalone_requests: number;
  sessions: number;
  /** Main-agent turns per session. */
  turns_per_session: DistStats;
  input_tokens: DistStats & { histogram: Bucket[] };
  output_tokens: DistStats & { histogram: Bucket[] };
  arrival: {
    /** Requests with a recorded send time. */
    timed: number;
    /** Last minus first recorded send time, s. */
    span_s: number;
    /** timed / span_s; null for a zero span. */
    mean_rate_per_s: number | null;
    windows: ArrivalWindow[];
  };
  /** Recorded gaps before a turn (think time, delay) and tool time after one, ms. */
  think_time_ms: DistStats;
  tool_time_ms: DistStats;
  subagents: {
    /** Distinct (session, agent) pairs. */
    count: number;
    requests: number;
    /** Subagents with no joining parent turn (they run in the background). */
    background: number;
    /** Subagents spawned per spawning parent turn. */
    fan_out: DistStats;
    dropped_no_parent_turn: number;
  };
  cache_ceiling: CacheCeiling | null;
  skipped_bad_records: number;
  warnings: string[];
}

/** Arrival counts in `n` equal windows over the recorded span (one window for a zero span). */
export function arrivalWindows(timesMs: readonly number[], n = 12): ArrivalWindow[] {
  if (!timesMs.length) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of timesMs) {
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  const span = hi - lo;
  const k = span > 0 ? n : 1;
  const width = span > 0 ? span / k : 1000;
  const counts = new Array<number>(k).fill(0);
  for (const t of timesMs) counts[Math.min(k - 1, Math.floor((t - lo) / width))]++;
  return counts.map((c, i) => ({ start_s: (i * width) / 1000, end_s: ((i + 1) * width) / 1000, requests: c, rate_per_s: c / (width / 1000) }));
}

export function traceStats(requests: readonly TraceRequest[], summary: TraceLoadSummary, edges: readonly number[], windows = 12): TraceStats {
  const inputs: number[] = [];
  const outputs: number[] = [];
  const times: number[] = [];
  const gaps: number[] = [];
  const tools: number[] = [];
  const turnsBySession = new Map<string, number>();
  const agents = new Map<string, { background: boolean }>();
  const spawns = new Map<string, Set<string>>();
  let standalone = 0;
  let subRequests = 0;
  for (const r of requests) {
    inputs.push(r.inputLength);
    outputs.push(r.outputLength);
    if (r.atMs !== undefined) times.push(r.atMs);
    if (r.gapMs !== undefined) gaps.push(r.gapMs);
    if (r.toolMs !== undefined) tools.push(r.toolMs);
    if (r.session === undefined) {
      standalone++;
      continue;
    }
    if (r.agent === undefined) turnsBySession.set(r.session, (turnsBySession.get(r.session) ?? 0) + 1);
    else {
      subRequests++;
      if (!turnsBySession.has(r.session)) turnsBySession.set(r.session, 0);
      const key = `${r.session}\u0000${r.agent}`;
      agents.set(key, { background: r.spawn?.joinTurn === undefined });
      const at = `${r.session}\u0000${r.spawn?.afterTurn ?? -1}`;
      let s = spawns.get(at);
      if (!s) spawns.set(at, (s = new Set()));
      s.add(r.agent);
    }
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of times) {
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  const span = times.length ? (hi - lo) / 1000 : 0;
  const withHashes = requests.some((r) => r.hashIds);
  return {
    format: summary.kind,
    ...(summary.detected ? { detected: summary.detected } : {}),
    ...(withHashes && summary.blockSize !== undefined ? { block_size: summary.blockSize } : {}),
    requests: requests.length,
    standalone_requests: standalone,
    sessions: turnsBySession.size,
    turns_per_session: distStats([...turnsBySession.values()]),
    input_tokens: { ...distStats(inputs), histogram: histogram(inputs, edges) },
    output_tokens: { ...distStats(outputs), histogram: histogram(outputs, edges) },
    arrival: { timed: times.length, span_s: span, mean_rate_per_s: span > 0 ? times.length / span : null, windows: arrivalWindows(times, windows) },
    think_time_ms: distStats(gaps),
    tool_time_ms: distStats(tools),
    subagents: {
      count: agents.size,
      requests: subRequests,
      background: [...agents.values()].filter((a) => a.background).length,
      fan_out: distStats([...spawns.values()].map((s) => s.size)),
      dropped_no_parent_turn: summary.droppedSubagents,
    },
    cache_ceiling: withHashes && summary.blockSize !== undefined ? cacheCeiling(requests, summary.blockSize) : null,
    skipped_bad_records: summary.skippedBadRecords,
    warnings: summary.warnings,
  };
}
