// The live terminal view's layout: a pure function from one view model (a snapshot plus windowed latencies) to lines.
import { WINDOW_MS } from '../../metrics/live.js';
import type { LiveSnapshot } from '../../metrics/live.js';
import { fmt, safeTerminalText } from '../format.js';

export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  /** At LiveView.extraPercentiles, in that order (absent: none asked). */
  extra?: (number | null)[];
}

export interface LiveView {
  snapshot: LiveSnapshot;
  /** Measured requests the run will send, when known. */
  total: number | undefined;
  /** --duration in seconds, when the run has one. */
  durationS: number | undefined;
  /** TPOT and E2E of measured ok requests that finished in the last WINDOW_MS (TTFT comes with the snapshot). */
  tpotMs: Percentiles;
  e2eMs: Percentiles;
  /** --percentiles beyond p50/p90/p99 (liveExtraPercentiles), a column each; TTFT's come from ttftExtraMs. */
  extraPercentiles?: number[];
  ttftExtraMs?: (number | null)[];
  /** Failed measured requests of the whole run by kind (status, and the HTTP status for http_error), most first. */
  errors: { kind: string; count: number }[];
  /** A sweep point's name, shown in the title. */
  label?: string;
}

/**
 * Seconds left: with --duration, duration − elapsed; else with a known total, (total − done) / windowed req/s.
 * null when neither tells (no total, or nothing finished in the window yet).
 */
export function timeLeftS(v: Pick<LiveView, 'snapshot' | 'total' | 'durationS'>): number | null {
  const s = v.snapshot;
  if (v.durationS !== undefined) return Math.max(0, v.durationS - s.elapsedS);
  if (v.total !== undefined && s.requestsPerS > 0) return Math.max(0, v.total - s.done) / s.requestsPerS;
  return null;
}

/** Share done, 0..1: requests done of the total, else time elapsed of --duration; null when the run has neither. */
export function progressFraction(v: Pick<LiveView, 'snapshot' | 'total' | 'durationS'>): number | null {
  if (v.total !== undefined && v.total > 0) return Math.min(1, v.snapshot.done / v.total);
  if (v.durationS !== undefined) return Math.min(1, v.snapshot.elapsedS / v.durationS);
  return null;
}

function clock(s: number): string {
  const t = Math.round(s);
  const m = Math.floor(t / 60);
  return m >= 60 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m` : m > 0 ? `${m}m${String(t % 60).padStart(2, '0')}s` : `${t}s`;
}

function bar(f: number, width: number): string {
  const n = Math.round(f * width);
  return `[${'#'.repeat(n)}${'.'.repeat(width - n)}]`;
}

/** The view as lines, each cut to `width` columns so that none wraps (the redraw counts lines). */
export function liveViewLines(v: LiveView, width = 100): string[] {
  const s = v.snapshot;
  const f = progressFraction(v);
  const left = timeLeftS(v);
  const win = `last ${WINDOW_MS / 1000}s`;
  const title = [
    `tokenflood${v.label ? ` ${safeTerminalText(v.label, 60)}` : ''}`,
    `${clock(s.elapsedS)} elapsed`,
    left === null ? '' : `~${clock(left)} left`,
    f === null ? '' : `${bar(f, 20)} ${Math.floor(f * 100)}%`,
  ].filter(Boolean).join('  ');
  const done = v.total !== undefined ? `${s.done}/${v.total}` : `${s.done}`;
  // Columns ascending: p50, p90, p99 and the extra ones in between or after.
  const extra = v.extraPercentiles ?? [];
  const cols = [50, 90, 99, ...extra].sort((a, b) => a - b);
  const value = (p: Percentiles, c: number) => (c === 50 ? p.p50 : c === 90 ? p.p90 : c === 99 ? p.p99 : (p.extra?.[extra.indexOf(c)] ?? null));
  const row = (name: string, p: Percentiles, digits: number) => [name, ...cols.map((c) => fmt(value(p, c), digits))];
  const rows = [
    ['', ...cols.map((c) => `p${c}`)],
    row('TTFT ms', { p50: s.ttftP50Ms, p90: s.ttftP90Ms, p99: s.ttftP99Ms, extra: v.ttftExtraMs }, 1),
    row('TPOT ms', v.tpotMs, 2),
    row('E2E ms', v.e2eMs, 1),
  ];
  const widths = [10, ...cols.map(() => 10)];
  const table = rows.map((r) => `  ${r[0].padEnd(widths[0])}${r.slice(1).map((c, i) => c.padStart(widths[i + 1])).join('')}`);
  const errors = v.errors.length ? v.errors.slice(0, 6).map((e) => `${safeTerminalText(e.kind, 40)} ${e.count}`).join('  ') + (v.errors.length > 6 ? `  +${v.errors.length - 6} more kinds` : '') : 'none';
  const lines = [
    title,
    `requests  done ${done}  ok ${s.ok}  failed ${s.failed}  in flight ${s.inFlight}`,
    `${win}   ${fmt(s.requestsPerS, 1)} req/s  ${s.outputTokS.toFixed(0)} output tok/s`,
    `latency (${win}):`,
    ...table,
    `errors    ${errors}`,
  ];
  const w = Math.max(20, width);
  return lines.map((l) => (l.length > w ? `${l.slice(0, w - 1)}…` : l));
}
