// Sweep insights, pure over rows: knee, peak, highest load meeting the SLOs, recommended operating point, stability, Pareto frontier.
import { loadWords, rowPairLabel, type GroupInsights, type KneeResult, type LoadMode, type SweepRow } from '../report/sweep-model.js';

export { loadWords, type GroupInsights, type KneeResult } from '../report/sweep-model.js';

/**
 * Server finding kinds (summary.server.findings, via the rows) that no level below the knee had, each with the first
 * level at or above the knee where it appears and that level's queue time and waiting requests.
 */
export function serverFindingsFrom(rows: readonly SweepRow[], kneeLoad: number): { kind: string; load: number; evidence: string }[] {
  const below = new Set(rows.filter((r) => r.load < kneeLoad).flatMap((r) => r.server_findings ?? []));
  const out: { kind: string; load: number; evidence: string }[] = [];
  for (const r of rows.filter((x) => x.load >= kneeLoad).sort((a, b) => a.load - b.load))
    for (const kind of r.server_findings ?? []) {
      if (below.has(kind) || out.some((o) => o.kind === kind)) continue;
      const q = r.server_queue_mean_ms;
      const w = r.server_waiting_mean;
      const parts = [q != null ? `mean queue ${q.toFixed(0)} ms` : '', w != null ? `${w.toFixed(1)} waiting` : ''].filter(Boolean);
      out.push({ kind, load: r.load, evidence: parts.length ? ` (${parts.join(', ')})` : '' });
    }
  return out;
}

/** Share of the knee load recommended for steady traffic, leaving the rest as headroom for bursts. */
export const HEADROOM_FACTOR = 0.7;

/** Minimum knee strength: a bend smaller than this is within noise, so no knee is reported. */
const MIN_KNEE_STRENGTH = 0.1;

/**
 * Knee of throughput vs load by the Kneedle method (Satopää et al., 2011): put log2(load) and throughput on [0, 1],
 * and take the level farthest above the straight line from the first to the last level. That is where the curve bends
 * most — the point after which added load stops adding throughput. Log load because sweeps double the load.
 * Returns null with fewer than 3 levels, when throughput is flat, or when the bend is within noise (strength < 0.1),
 * e.g. when throughput still grows steadily at the highest level.
 */
export function findKnee(points: readonly { load: number; output_throughput: number }[]): KneeResult | null {
  const pts = [...points].filter((p) => p.load > 0).sort((a, b) => a.load - b.load);
  if (pts.length < 3) return null;
  const xs = pts.map((p) => Math.log2(p.load));
  const ys = pts.map((p) => p.output_throughput);
  const x0 = xs[0];
  const xr = xs[xs.length - 1] - x0;
  const ymin = Math.min(...ys);
  const yr = Math.max(...ys) - ymin;
  if (xr <= 0 || yr <= 0) return null;
  // Distance above the chord joining the first and the last level, on normalised axes.
  const yFirst = (ys[0] - ymin) / yr;
  const yLast = (ys[ys.length - 1] - ymin) / yr;
  let best = -1;
  let bestD = -Infinity;
  for (let i = 1; i < pts.length - 1; i++) {
    const xn = (xs[i] - x0) / xr;
    const d = (ys[i] - ymin) / yr - (yFirst + (yLast - yFirst) * xn);
    if (d > bestD) {
      bestD = d;
      best = i;
    }
  }
  if (best < 0 || bestD < MIN_KNEE_STRENGTH) return null;
  return { load: pts[best].load, output_throughput: pts[best].output_throughput, strength: bestD };
}

/** Points not dominated by another with at least the throughput and at most the latency (one strictly better). */
export function paretoFrontier<T extends { output_throughput: number; e2e_p99_ms: number | null }>(rows: readonly T[]): T[] {
  const valid = rows.filter((r) => r.e2e_p99_ms !== null);
  return valid.filter(
    (r) =>
      !valid.some(
        (s) =>
          s !== r &&
          s.output_throughput >= r.output_throughput &&
          (s.e2e_p99_ms as number) <= (r.e2e_p99_ms as number) &&
          (s.output_throughput > r.output_throughput || (s.e2e_p99_ms as number) < (r.e2e_p99_ms as number)),
      ),
  );
}

/** Linear interpolation of output throughput at `load` over log2(load); null outside the tested range. */
export function throughputAt(rows: readonly SweepRow[], load: number): number | null {
  const pts = [...rows].sort((a, b) => a.load - b.load);
  for (let i = 0; i < pts.length; i++) {
    if (pts[i].load === load) return pts[i].output_throughput;
    if (i > 0 && pts[i - 1].load < load && load < pts[i].load) {
      const t = (Math.log2(load) - Math.log2(pts[i - 1].load)) / (Math.log2(pts[i].load) - Math.log2(pts[i - 1].load));
      return pts[i - 1].output_throughput + t * (pts[i].output_throughput - pts[i - 1].output_throughput);
    }
  }
  return null;
}

const n0 = (x: number): string => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(x >= 10 ? 1 : 2));
const ms = (x: number | null): string => (x === null ? 'n/a' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${n0(x)} ms`);
function roundLoad(mode: LoadMode, x: number): number {
  return mode === 'concurrency' ? Math.max(1, Math.floor(x)) : Math.max(0.01, Math.floor(x * 100) / 100);
}

export interface InsightOptions {
  /** Whether the sweep had SLOs (otherwise only the error threshold bounds the acceptable levels). */
  hasSlo: boolean;
  maxErrorRate: number;
  /** Interrupted, or a point could not run: the levels found do not bound the search, so nothing is recommended. */
  incomplete?: 'interrupted' | 'failed';
}

/** Insights for the levels of one input/output pair. `rows` must share mode and lengths. */
export function groupInsights(rows: readonly SweepRow[], opt: InsightOptions): GroupInsights {
  const all = [...rows].sort((a, b) => a.load - b.load);
  const first = all[0];
  const mode = first?.mode ?? 'concurrency';
  const words = (l: number) => loadWords(mode, l);
  const statements: string[] = [];
  // Rows written before `status`/`client_bound` existed count as run and trusted.
  const notRun = all.filter((r) => r.status === 'failed');
  const sorted = all.filter((r) => r.status !== 'failed');
  const withOk = sorted.filter((r) => r.ok > 0);
  // Client-bound levels stay in the analysis: the thresholds (10 ms event-loop delay) trip on any busy host, and
  // dropping those levels would silently drop the findings. Each finding that rests on one says so instead.
  const clientBound = withOk.filter((r) => r.client_bound === true);
  const cbAt = (load: number) => clientBound.some((r) => r.load === load);
  const cbNote = (load: number) => (cbAt(load) ? ' [client-bound level: may reflect the load generator, not the server]' : '');
  // Levels failing more than the error threshold measured a server that was breaking: their latencies describe the
  // few requests that got through, so the knee, recommendation, stability and Pareto findings leave them out.
  const failing = withOk.filter((r) => r.error_rate > opt.maxErrorRate);
  const trusted = withOk.filter((r) => r.error_rate <= opt.maxErrorRate);
  const threshold = `${+(opt.maxErrorRate * 100).toFixed(2)}%`;
  const peakRow = withOk.reduce<SweepRow | undefined>((b, r) => (!b || r.output_throughput > b.output_throughput ? r : b), undefined);
  const peak = peakRow ? { load: peakRow.load, output_throughput: peakRow.output_throughput } : null;
  if (peak) statements.push(`Peak output throughput: ${n0(peak.output_throughput)} tok/s at ${words(peak.load)}${peakRow?.client_bound ? ' (client-bound level)' : ''}${peakRow && peakRow.error_rate > opt.maxErrorRate ? ` (error rate ${(peakRow.error_rate * 100).toFixed(1)}%, above the error threshold)` : ''}.`);
  if (failing.length)
    statements.push(
      `Left out of the knee, recommendation, stability and Pareto findings: ${failing.map((r) => `${words(r.load)} (error rate ${(r.error_rate * 100).toFixed(1)}%)`).join(', ')}, above the ${threshold} error threshold (--max-error-rate).`,
    );
  if (clientBound.length)
    statements.push(
      `CLIENT-BOUND at ${clientBound.map((r) => words(r.load)).join(', ')}: the load generator itself was a bottleneck there, so their latencies and throughput may include client time; findings drawn from them are marked.`,
    );

  const knee = findKnee(trusted);
  if (knee) {
    const last = trusted[trusted.length - 1];
    const kr = trusted.find((r) => r.load === knee.load) as SweepRow;
    const gain = kr.output_throughput > 0 ? last.output_throughput / kr.output_throughput - 1 : 0;
    const latRatio = kr.ttft_p99_ms && last.ttft_p99_ms ? last.ttft_p99_ms / kr.ttft_p99_ms : null;
    statements.push(
      `Knee at ${words(knee.load)} (${n0(knee.output_throughput)} tok/s): from there to ${words(last.load)} throughput changes ${gain >= 0 ? '+' : ''}${(gain * 100).toFixed(0)}%` +
        (latRatio !== null
          ? ` while p99 TTFT ${latRatio >= 1 ? `grows ${latRatio.toFixed(1)}x` : 'falls'} (${ms(kr.ttft_p99_ms)} to ${ms(last.ttft_p99_ms)})`
          : '') +
        `${cbNote(knee.load)}.`,
    );
    const setIn = serverFindingsFrom(trusted, knee.load);
    if (setIn.length)
      statements.push(
        `What sets in at the knee, from the server's /metrics: ${setIn.map((f) => `${f.kind.replace(/_/g, '-')} from ${words(f.load)}${f.evidence}`).join('; ')}.`,
      );
  } else if (trusted.length >= 3) statements.push(`No knee in the tested range: throughput has not levelled off by ${words(trusted[trusted.length - 1].load)}; test higher loads to find the limit.`);
  else statements.push('Too few levels to locate a knee (at least 3 are needed).');

  // Acceptable: met the SLOs (when any) and the error threshold. Highest level with every level up to it acceptable.
  const acceptable = (r: SweepRow) => r.ok > 0 && r.error_rate <= opt.maxErrorRate && (r.slo_passed ?? true);
  let maxOk: number | null = null;
  for (const r of sorted) {
    if (!acceptable(r)) break;
    maxOk = r.load;
  }
  const firstBad = sorted.find((r) => !acceptable(r));
  const what = opt.hasSlo ? 'the SLOs' : `an error rate under ${(opt.maxErrorRate * 100).toFixed(0)}%`;
  if (maxOk !== null) statements.push(`Highest load meeting ${what}: ${words(maxOk)}.`);
  else if (firstBad) statements.push(`No tested level met ${what}; even ${words(firstBad.load)} failed (${firstBad.slo_failed.join(', ') || `error rate ${(firstBad.error_rate * 100).toFixed(1)}%`}).`);
  if (firstBad && maxOk !== null) statements.push(`${words(firstBad.load)} fails (${firstBad.slo_failed.join(', ') || `error rate ${(firstBad.error_rate * 100).toFixed(1)}%`}).`);

  const headroom = knee ? roundLoad(mode, knee.load * HEADROOM_FACTOR) : null;
  let recommended: GroupInsights['recommended'] = null;
  if (opt.incomplete) {
    statements.push(
      opt.incomplete === 'interrupted'
        ? 'Interrupted: no recommendation (not every level ran, so the limit is unknown).'
        : 'Incomplete: no recommendation (a point could not run, so the limit is unknown).',
    );
  } else {
    if (headroom !== null && maxOk !== null && headroom <= maxOk) {
      recommended = { load: headroom, reason: `${HEADROOM_FACTOR * 100}% of the knee (${words(knee!.load)}), leaving headroom for bursts`, expected_output_throughput: null, interpolated: false };
    } else if (maxOk !== null) {
      recommended = {
        load: maxOk,
        reason: knee ? `the highest load meeting ${what} (below 70% of the knee)` : `the highest load meeting ${what}; no knee found, so the limit may be higher`,
        expected_output_throughput: null,
        interpolated: false,
      };
    }
    if (recommended) {
      recommended.interpolated = !trusted.some((r) => r.load === recommended!.load);
      recommended.expected_output_throughput = throughputAt(trusted, recommended.load);
      const exp = recommended.expected_output_throughput;
      const interp = recommended.interpolated ? ' (interpolated: this level was not measured)' : '';
      // The levels it rests on: the knee (or the cap) and, for an interpolated load, the measured levels around it.
      const rec = recommended.load;
      const below = trusted.filter((r) => r.load < rec).at(-1)?.load;
      const above = trusted.find((r) => r.load > rec)?.load;
      const around = recommended.interpolated ? [below, above].filter((x): x is number => x !== undefined) : [rec];
      const basis = [...new Set([...(knee && rec === headroom ? [knee.load] : []), ...around])];
      const cbBasis = basis.some(cbAt) ? ` [drawn from client-bound levels (${basis.filter(cbAt).map(words).join(', ')}): treat with caution]` : '';
      statements.push(
        `Recommended operating point: ${words(recommended.load)}${interp} — ${recommended.reason}${exp !== null ? `; expect about ${n0(exp)} tok/s${recommended.interpolated ? ', interpolated between the measured levels around it' : ''}` : ''}${cbBasis}.`,
      );
    } else statements.push('No operating point can be recommended from these levels.');
  }

  const stableRows = trusted.filter((r) => r.tpot_cv !== null || r.e2e_cv !== null);
  const score = (r: SweepRow) => ((r.tpot_cv ?? r.e2e_cv ?? 0) + (r.e2e_cv ?? r.tpot_cv ?? 0)) / 2;
  const stable = stableRows.reduce<SweepRow | undefined>((b, r) => (!b || score(r) < score(b) ? r : b), undefined);
  const most_stable = stable ? { load: stable.load, tpot_cv: stable.tpot_cv, e2e_cv: stable.e2e_cv } : null;
  if (stable)
    statements.push(`Most stable level: ${words(stable.load)} (coefficient of variation of TPOT ${stable.tpot_cv?.toFixed(2) ?? 'n/a'}, of E2E ${stable.e2e_cv?.toFixed(2) ?? 'n/a'}).`);

  const pareto = paretoFrontier(trusted).map((r) => r.load).sort((a, b) => a - b);
  if (pareto.length) statements.push(`Pareto frontier of throughput vs p99 E2E: ${pareto.map(words).join(', ')}; every other level is beaten on both.`);
  const errs = sorted.filter((r) => r.error_rate > 0);
  if (errs.length) statements.push(`Errors at ${errs.map((r) => `${words(r.load)} (${(r.error_rate * 100).toFixed(1)}%)`).join(', ')}.`);
  if (notRun.length) statements.push(`Not measured: ${notRun.map((r) => words(r.load)).join(', ')} (${notRun[0].error ?? 'could not run'}).`);

  return {
    mode,
    input_tokens: first?.input_tokens ?? 0,
    output_tokens: first?.output_tokens ?? 0,
    lengths: first?.lengths ?? rowPairLabel({ input_tokens: first?.input_tokens ?? 0, output_tokens: first?.output_tokens ?? 0 }),
    levels: all.map((r) => r.load),
    peak,
    knee,
    max_load_meeting_slo: maxOk,
    headroom_load: headroom,
    recommended,
    client_bound_levels: clientBound.map((r) => r.load),
    failed_levels: notRun.map((r) => r.load),
    most_stable,
    pareto,
    statements,
  };
}

/** Rows grouped by input/output pair (in first-seen order), each group's insights computed. */
export function sweepInsights(rows: readonly SweepRow[], opt: InsightOptions): GroupInsights[] {
  const groups = new Map<string, SweepRow[]>();
  for (const r of rows) {
    const k = `${r.input_tokens}x${r.output_tokens}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  return [...groups.values()].map((g) => groupInsights(g, opt));
}
