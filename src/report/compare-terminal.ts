// Terminal reporter for `compare`: one side-by-side table per compared point, regressions marked.
import { identityLines } from './compare-identity.js';
import { fmt, safeTerminalText, table } from './format.js';
import type { CompareResult, MetricDelta } from './compare.js';
import type { TurnTtftDelta } from './compare-turns.js';

function show(x: number | null, unit: string): string {
  if (x === null) return '-';
  return unit === 'ratio' ? `${(x * 100).toFixed(2)}%` : fmt(x);
}

function deltaText(d: MetricDelta): string {
  if (d.delta === null) return '-';
  const sign = d.delta > 0 ? '+' : '';
  return d.unit === 'ratio' ? `${sign}${(d.delta * 100).toFixed(2)} pp` : `${sign}${fmt(d.delta)}`;
}

const relText = (d: MetricDelta): string => (d.relative === null ? '-' : `${d.relative > 0 ? '+' : ''}${(d.relative * 100).toFixed(1)}%`);
const verdict = (d: MetricDelta): string => (d.regressed ? 'REGRESSED' : d.improved ? 'better' : d.verdict);

/** A p-value as printed: three decimals, "<0.001" below. */
export const pText = (p: number | null): string => (p === null ? 'n/a' : p < 0.001 ? '<0.001' : p.toFixed(3));

/** The 95% interval of a delta, in the row's unit (ratios in percentage points). */
function ciText(d: MetricDelta): string {
  if (!d.ci95) return '-';
  const f = (x: number) => (d.unit === 'ratio' ? `${(x * 100).toFixed(2)}` : fmt(x));
  return `[${f(d.ci95[0])}, ${f(d.ci95[1])}]${d.unit === 'ratio' ? ' pp' : ''}`;
}

/** The --fail-on verdict of each watched metric, then the overall outcome. */
function gateLines(res: CompareResult): string[] {
  if (!res.fail_on.length) return [];
  const how = res.fail_on_mode === 'strict' ? 'strict: the threshold alone' : `a regression beyond the threshold and significant at alpha ${res.alpha}`;
  const many = new Set(res.gate.map((g) => g.candidate)).size > 1;
  const lines = [`--fail-on (${how}):`];
  for (const g of res.gate) {
    const where = [many ? g.candidate : '', g.point === 'run' ? '' : g.point].filter(Boolean).join(' @ ');
    const rel = g.relative === null ? '-' : `${g.relative > 0 ? '+' : ''}${(g.relative * 100).toFixed(1)}%`;
    const word = g.failed ? 'REGRESSED' : g.verdict === 'improved' || g.verdict === 'n/a' ? g.verdict : `within noise (${g.verdict === 'within noise' ? 'beyond the threshold, not significant' : 'not beyond the threshold'})`;
    lines.push(`  ${g.metric}${where ? ` (${where})` : ''}: ${rel} (threshold ${g.threshold_pct}%, p ${pText(g.p)}): ${word}`);
  }
  lines.push(res.failed ? `FAILED: --fail-on metrics regressed: ${[...new Set(res.failures.map((f) => f.metric))].join(', ')}` : `passed: no --fail-on metric (${res.fail_on.join(', ')}) regressed`);
  return lines;
}

type Pair = TurnTtftDelta['ttft_p50'];
const signed = (x: number | null): string => (x === null ? '-' : `${x > 0 ? '+' : ''}${fmt(x)}`);
const rel = (p: Pair): string => (p.relative === null ? '-' : `${p.relative > 0 ? '+' : ''}${(p.relative * 100).toFixed(1)}%`);

/** Per turn (or image count: `head`): requests on each side, TTFT p50 and p99 baseline → candidate with the delta. */
function turnTable(rows: readonly Omit<TurnTtftDelta, 'turn'>[], key: (i: number) => string = (i) => (rows[i] as TurnTtftDelta).turn, head = 'turn'): string {
  return table(
    [head, 'requests', 'TTFT p50 base', 'cand', 'delta', 'delta %', 'TTFT p99 base', 'cand', 'delta'],
    rows.map((r, i) => [key(i), `${r.baseline_requests}/${r.candidate_requests}`, fmt(r.ttft_p50.baseline), fmt(r.ttft_p50.candidate), signed(r.ttft_p50.delta), rel(r.ttft_p50), fmt(r.ttft_p99.baseline), fmt(r.ttft_p99.candidate), signed(r.ttft_p99.delta)]),
  );
}

export function renderComparison(res: CompareResult): string {
  const out: string[] = [];
  for (const c of res.comparisons) {
    // A repeated-run side shows the mean of its runs, and its rows are tested across runs.
    const runs = (n: number | null) => (n !== null && n > 1 ? ` (${n} runs: their mean)` : '');
    out.push(`baseline  ${c.baseline}${runs(c.baseline_runs)}`, `candidate ${c.candidate}${runs(c.candidate_runs)}`);
    // Run metadata can carry server text (model names): keep control sequences off the terminal.
    if (c.warnings.length) out.push('WARNING: these inputs differ in kind, so the deltas below may not mean better or worse:', ...c.warnings.map((w) => `  - ${safeTerminalText(w, 400)}`));
    out.push(...identityLines(c.identity));
    if (c.prompt_cache_warnings.length) out.push('WARNING: a prefix cache answered prompts meant to be fresh, so these figures are not those of uncached prompts:', ...c.prompt_cache_warnings.map((w) => `  - ${safeTerminalText(w, 700)}`));
    for (const p of c.points) {
      if (c.kind === 'sweep') out.push('', `${p.point}:`);
      out.push(
        table(
          ['metric', 'better', 'baseline', 'candidate', 'delta', 'delta %', 'delta 95% CI', 'p', ''],
          p.deltas.map((d) => [`${d.label}${d.unit === 'ratio' ? '' : ` (${d.unit})`}`, d.better, show(d.baseline, d.unit), show(d.candidate, d.unit), deltaText(d), relText(d), ciText(d), pText(d.p), verdict(d)]),
        ),
      );
    }
    if (c.by_turn) out.push('', 'TTFT by turn index (informational: not a regression check):', turnTable(c.by_turn));
    if (c.by_images) out.push('', 'TTFT by image count (informational: not a regression check):', turnTable(c.by_images, (i) => c.by_images![i].images, 'images'));
    for (const u of c.unmatched) out.push(`not compared: ${u}`);
    const beyond = res.fail_on_mode === 'strict' ? `beyond ${res.threshold_pct}%` : `beyond ${res.threshold_pct}% and significant at alpha ${res.alpha}`;
    const noise = c.points.flatMap((p) => p.deltas.filter((d) => d.verdict === 'within noise').map((d) => (c.kind === 'sweep' ? `${d.metric} @ ${p.point}` : d.metric)));
    out.push(
      '',
      c.regressions.length
        ? `${c.regressions.length} regression(s) ${beyond}: ${c.regressions.map((r) => (c.kind === 'sweep' ? `${r.metric} @ ${r.point}` : r.metric)).join('; ')}`
        : `no regressions ${beyond}`,
      ...(noise.length ? [`within noise (beyond the threshold, p ≥ ${res.alpha}): ${noise.join('; ')}`] : []),
      '',
    );
  }
  out.push(...gateLines(res));
  return out.join('\n').trimEnd();
}
