// Sweep insights, pure over rows: knee, peak, highest load meeting the SLOs, recommended point and range, grades, anomalies, stability, Pareto.
import { loadWords, rowPairLabel, type GroupInsights, type KneeResult, type LoadMode, type PointGrade, type SweepRow } from '../report/sweep-model.js';
import { KNEE_METRIC_WORDS, kneedle, metricKnees } from './knees.js';
import { COMFORTABLE, GRADE_BOUNDS, gradePoint } from './grade.js';
import { findAnomalies } from './anomalies.js';

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

/**
 * Knee of throughput vs load by the Kneedle method (Satopää et al., 2011): put log2(load) and throughput on [0, 1],
 * and take the level farthest above the straight line from the first to the last level. That is where the curve bends
 * most — the point after which added load stops adding throughput. Log load because sweeps double the load.
 * Returns null with fewer than 3 levels, when throughput is flat, or when the bend is within noise (strength < 0.1),
 * e.g. when throughput still grows steadily at the highest level.
 */
export function findKnee(points: readonly { load: number; output_throughput: number }[]): KneeResult | null {
  const k = kneedle(points.map((p) => ({ load: p.load, y: p.output_throughput })), 'concave');
  const at = k && points.find((p) => p.load === k.load);
  return k && at ? { load: k.load, output_throughput: at.output_throughput, strength: k.strength } : null;
}

/** " [points: a, b]": the points a statement rests on. */
const onPoints = (names: readonly (string | undefined)[]): string => {
  const n = [...new Set(names.filter((x): x is string => !!x))];
  return n.length ? ` [point${n.length > 1 ? 's' : ''}: ${n.join(', ')}]` : '';
};
const gradeWords = GRADE_BOUNDS.map(([g, b]) => `${g} ≤ ${b * 100}%`).join(', ');

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
  const cbNames = new Set(clientBound.map((r) => r.name));
  /** The client-bound points among those a finding rests on (sweep.json's `client_bound_points`). */
  const cbOf = (names: readonly (string | undefined)[]): string[] => [...new Set(names.filter((n): n is string => !!n && cbNames.has(n)))];
  /** The mark a finding resting on client-bound points carries in its statement (terminal and report.html). */
  const cbMark = (names: readonly string[]): string =>
    names.length ? ` [rests on client-bound point${names.length > 1 ? 's' : ''} ${names.join(', ')}: may reflect the load generator, not the server]` : '';
  // Levels failing more than the error threshold measured a server that was breaking: their latencies describe the
  // few requests that got through, so the knee, recommendation, stability and Pareto findings leave them out.
  const failing = withOk.filter((r) => r.error_rate > opt.maxErrorRate);
  const trusted = withOk.filter((r) => r.error_rate <= opt.maxErrorRate);
  const threshold = `${+(opt.maxErrorRate * 100).toFixed(2)}%`;
  const peakRow = withOk.reduce<SweepRow | undefined>((b, r) => (!b || r.output_throughput > b.output_throughput ? r : b), undefined);
  const peak = peakRow ? { load: peakRow.load, output_throughput: peakRow.output_throughput } : null;
  if (peak) statements.push(`Peak output throughput: ${n0(peak.output_throughput)} tok/s at ${words(peak.load)}${cbMark(cbOf([peakRow?.name]))}${peakRow && peakRow.error_rate > opt.maxErrorRate ? ` (error rate ${(peakRow.error_rate * 100).toFixed(1)}%, above the error threshold)` : ''}${onPoints([peakRow?.name])}.`);
  if (failing.length)
    statements.push(
      `Left out of the knee, recommendation, stability and Pareto findings: ${failing.map((r) => `${words(r.load)} (error rate ${(r.error_rate * 100).toFixed(1)}%)`).join(', ')}, above the ${threshold} error threshold (--max-error-rate)${onPoints(failing.map((r) => r.name))}.`,
    );
  if (clientBound.length)
    statements.push(
      `CLIENT-BOUND at ${clientBound.map((r) => words(r.load)).join(', ')}: the load generator itself was a bottleneck there, so their latencies and throughput may include client time; findings drawn from them are marked${onPoints(clientBound.map((r) => r.name))}.`,
    );

  const nameAt = (load: number | null | undefined) => all.find((r) => r.load === load)?.name;
  const knees = metricKnees(trusted).map((k) => ({ ...k, point: nameAt(k.load) as string }));
  const k0 = knees[0];
  // A knee rests on its own point and on the chord from the lowest to the highest level that Kneedle measures it against.
  const kneeBasis = k0 ? [trusted[0]?.name, k0.point, trusted[trusted.length - 1]?.name] : [];
  const knee: KneeResult | null = k0
    ? {
        load: k0.load,
        output_throughput: (trusted.find((r) => r.load === k0.load) as SweepRow).output_throughput,
        strength: k0.strength,
        metric: k0.metric,
        point: k0.point,
        client_bound_points: cbOf(kneeBasis),
      }
    : null;
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
        `${cbMark(knee.client_bound_points ?? [])}${onPoints([knee.point, last.name])}.`,
    );
    const others = knees.slice(1).map((k) => `${KNEE_METRIC_WORDS[k.metric].replace(/ (levelling|taking) off$/, '')} bends at ${words(k.load)}`);
    statements.push(
      `The knee is defined by ${KNEE_METRIC_WORDS[knee.metric as keyof typeof KNEE_METRIC_WORDS]}, the first curve to bend (Kneedle on each of output throughput and p99 TTFT, TPOT, E2E)` +
        `${others.length ? `; ${others.join(', ')}` : '; no other curve bends'}${cbMark(cbOf([...kneeBasis, ...knees.map((k) => k.point)]))}${onPoints(knees.map((k) => k.point))}.`,
    );
    const setIn = serverFindingsFrom(trusted, knee.load);
    if (setIn.length)
      statements.push(
        `What sets in at the knee, from the server's /metrics: ${setIn.map((f) => `${f.kind.replace(/_/g, '-')} from ${words(f.load)}${f.evidence}`).join('; ')}${cbMark(cbOf(setIn.map((f) => nameAt(f.load))))}${onPoints(setIn.map((f) => nameAt(f.load)))}.`,
      );
  } else if (trusted.length >= 3) statements.push(`No knee in the tested range: throughput has not levelled off by ${words(trusted[trusted.length - 1].load)}; test higher loads to find the limit${onPoints(trusted.map((r) => r.name))}.`);
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
  // Without SLOs nothing was checked but the error rate: say so, never "meeting SLOs".
  if (maxOk !== null)
    statements.push(`${opt.hasSlo ? `Highest load meeting ${what}` : `Highest load with ${what} (no SLO given)`}: ${words(maxOk)}${cbMark(cbOf([nameAt(maxOk)]))}${onPoints([nameAt(maxOk)])}.`);
  else if (firstBad) statements.push(`No tested level met ${what}; even ${words(firstBad.load)} failed (${firstBad.slo_failed.join(', ') || `error rate ${(firstBad.error_rate * 100).toFixed(1)}%`})${onPoints([firstBad.name])}.`);
  if (firstBad && maxOk !== null) statements.push(`${words(firstBad.load)} fails (${firstBad.slo_failed.join(', ') || `error rate ${(firstBad.error_rate * 100).toFixed(1)}%`})${onPoints([firstBad.name])}.`);

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
      recommended = { load: headroom, reason: `${HEADROOM_FACTOR * 100}% of the knee (${words(knee!.load)}), leaving headroom for bursts`, expected_output_throughput: null, interpolated: false, client_bound_points: [] };
    } else if (maxOk !== null) {
      recommended = {
        load: maxOk,
        reason: knee ? `the highest load ${opt.hasSlo ? 'meeting' : 'with'} ${what} (below 70% of the knee)` : `the highest load ${opt.hasSlo ? 'meeting' : 'with'} ${what}; no knee found, so the limit may be higher`,
        expected_output_throughput: null,
        interpolated: false,
        client_bound_points: [],
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
      // Resting on the knee, the recommendation rests on what the knee rests on.
      recommended.client_bound_points = cbOf([...basis.map(nameAt), ...(knee && rec === headroom ? kneeBasis : [])]);
      const cbBasis = cbMark(recommended.client_bound_points);
      statements.push(
        `Recommended operating point: ${words(recommended.load)}${interp} — ${recommended.reason}${exp !== null ? `; expect about ${n0(exp)} tok/s${recommended.interpolated ? ', interpolated between the measured levels around it' : ''}` : ''}${cbBasis}${onPoints(basis.map(nameAt))}.`,
      );
    } else statements.push('No operating point can be recommended from these levels.');
  }

  const stableRows = trusted.filter((r) => r.tpot_cv !== null || r.e2e_cv !== null);
  const score = (r: SweepRow) => ((r.tpot_cv ?? r.e2e_cv ?? 0) + (r.e2e_cv ?? r.tpot_cv ?? 0)) / 2;
  const stable = stableRows.reduce<SweepRow | undefined>((b, r) => (!b || score(r) < score(b) ? r : b), undefined);
  const most_stable = stable ? { load: stable.load, tpot_cv: stable.tpot_cv, e2e_cv: stable.e2e_cv } : null;
  if (stable)
    statements.push(`Most stable level: ${words(stable.load)} (coefficient of variation of TPOT ${stable.tpot_cv?.toFixed(2) ?? 'n/a'}, of E2E ${stable.e2e_cv?.toFixed(2) ?? 'n/a'})${cbMark(cbOf([stable.name]))}${onPoints([stable.name])}.`);

  const pareto = paretoFrontier(trusted).map((r) => r.load).sort((a, b) => a - b);
  if (pareto.length) statements.push(`Pareto frontier of throughput vs p99 E2E: ${pareto.map(words).join(', ')}; every other level is beaten on both${cbMark(cbOf(pareto.map(nameAt)))}${onPoints(pareto.map(nameAt))}.`);
  const errs = sorted.filter((r) => r.error_rate > 0);
  if (errs.length) statements.push(`Errors at ${errs.map((r) => `${words(r.load)} (${(r.error_rate * 100).toFixed(1)}%)`).join(', ')}${onPoints(errs.map((r) => r.name))}.`);
  if (notRun.length) statements.push(`Not measured: ${notRun.map((r) => words(r.load)).join(', ')} (${notRun[0].error ?? 'could not run'})${onPoints(notRun.map((r) => r.name))}.`);

  // Grades from SLO margins, the range they bound, and the anomalies.
  const grades: PointGrade[] = opt.hasSlo
    ? all.map((r) => ({ load: r.load, name: r.name, grade: gradePoint(r, opt.maxErrorRate), worst_metric: r.slo_worst_metric ?? null, worst_ratio: r.slo_worst_ratio ?? null }))
    : [];
  const gradeText = (g: PointGrade) =>
    `${g.name} ${g.grade ?? 'not graded'}${g.worst_metric && g.worst_ratio !== null ? ` (${g.worst_metric} at ${(g.worst_ratio * 100).toFixed(0)}% of its limit)` : g.grade === 'F' && g.worst_metric ? ` (${g.worst_metric})` : ''}`;
  if (grades.length) statements.push(`Grades from SLO margins (worst SLO metric's share of its limit: ${gradeWords}; F fails an SLO or the error threshold): ${grades.map(gradeText).join(', ')}.`);
  const range = recommendedRange(sorted, trusted, { knee, maxOk, headroom, grades, opt, what, words, nameAt });
  if (range.range) {
    const r = range.range;
    r.client_bound_points = cbOf([...r.points, ...(knee && r.high === knee.load ? kneeBasis : [])]);
    statements.push(
      `Recommended range: ${r.low === r.high ? `${words(r.low)} alone` : `${words(r.low)}${r.interpolated ? ' (interpolated: this level was not measured)' : ''} to ${words(r.high)}`} — from ${r.low_reason} to ${r.high_reason}${cbMark(r.client_bound_points)}${onPoints(r.points)}.`,
    );
  } else if (range.why) statements.push(range.why);
  const anomalies = findAnomalies(all, mode).map((a) => ({ ...a, client_bound_points: cbOf(a.points) }));
  // Client-bound levels already have their CLIENT-BOUND statement above.
  for (const a of anomalies.filter((x) => x.kind !== 'client_bound'))
    statements.push(`Anomaly (${a.kind.replace(/_/g, ' ')}): ${a.detail}${cbMark(a.client_bound_points)}${onPoints(a.points)}.`);

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
    knees,
    grades,
    recommended_range: range.range,
    anomalies,
    statements,
  };
}

interface RangeInput {
  knee: KneeResult | null;
  maxOk: number | null;
  headroom: number | null;
  grades: readonly PointGrade[];
  opt: InsightOptions;
  what: string;
  words: (l: number) => string;
  nameAt: (l: number) => string | undefined;
}

/**
 * The recommended range: from the highest level graded A or B (comfortable SLO margin; without SLOs, 70% of the knee)
 * to the knee, both capped at the highest load meeting the SLOs. A low end above the high end collapses onto it.
 */
function recommendedRange(sorted: readonly SweepRow[], trusted: readonly SweepRow[], x: RangeInput): { range: NonNullable<GroupInsights['recommended_range']> | null; why?: string } {
  const { knee, maxOk, opt, words } = x;
  if (opt.incomplete || maxOk === null) return { range: null };
  const high = knee ? Math.min(knee.load, maxOk) : maxOk;
  const highReason =
    knee && knee.load <= maxOk
      ? `the knee (${KNEE_METRIC_WORDS[knee.metric ?? 'output_throughput']})`
      : knee
        ? `the highest load ${opt.hasSlo ? 'meeting' : 'with'} ${x.what} (the knee, ${words(knee.load)}, does not)`
        : `the highest load ${opt.hasSlo ? 'meeting' : 'with'} ${x.what} (no knee found: the limit may be higher)`;
  let low: number;
  let lowReason: string;
  if (opt.hasSlo) {
    const gradeOf = new Map(x.grades.map((g) => [g.load, g]));
    const comfy = sorted.filter((r) => r.load <= high && COMFORTABLE.includes(gradeOf.get(r.load)?.grade as 'A')).at(-1);
    if (!comfy) return { range: null, why: `No recommended range: no level up to ${words(high)} had comfortable SLO margin (grade A or B: every SLO metric at most 75% of its limit).` };
    const g = gradeOf.get(comfy.load) as PointGrade;
    low = comfy.load;
    lowReason = `the highest load with comfortable SLO margin (grade ${g.grade}${g.worst_metric && g.worst_ratio !== null ? `: ${g.worst_metric} at ${(g.worst_ratio * 100).toFixed(0)}% of its limit` : ''})`;
  } else if (x.headroom !== null) {
    low = Math.min(x.headroom, high);
    lowReason = `${HEADROOM_FACTOR * 100}% of the knee (no SLOs to grade margins against)`;
  } else return { range: null, why: 'No recommended range: no SLOs to grade margins against and no knee.' };
  const interpolated = !trusted.some((r) => r.load === low);
  const points = [interpolated ? undefined : x.nameAt(low), x.nameAt(high), ...(interpolated ? [trusted.filter((r) => r.load < low).at(-1)?.name, trusted.find((r) => r.load > low)?.name] : [])];
  return { range: { low, high, low_reason: lowReason, high_reason: highReason, interpolated, points: [...new Set(points.filter((p): p is string => !!p))], client_bound_points: [] } };
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
