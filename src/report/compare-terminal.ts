// Terminal reporter for `compare`: one side-by-side table per compared point, regressions marked.
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
const verdict = (d: MetricDelta): string => (d.regressed ? 'REGRESSED' : d.improved ? 'better' : d.delta === null ? 'n/a' : 'same');

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
    out.push(`baseline  ${c.baseline}`, `candidate ${c.candidate}`);
    // Run metadata can carry server text (model names): keep control sequences off the terminal.
    if (c.warnings.length) out.push('WARNING: these inputs differ in kind, so the deltas below may not mean better or worse:', ...c.warnings.map((w) => `  - ${safeTerminalText(w, 400)}`));
    if (c.prompt_cache_warnings.length) out.push('WARNING: a prefix cache answered prompts meant to be fresh, so these figures are not those of uncached prompts:', ...c.prompt_cache_warnings.map((w) => `  - ${safeTerminalText(w, 700)}`));
    for (const p of c.points) {
      if (c.kind === 'sweep') out.push('', `${p.point}:`);
      out.push(
        table(
          ['metric', 'better', 'baseline', 'candidate', 'delta', 'delta %', ''],
          p.deltas.map((d) => [`${d.label}${d.unit === 'ratio' ? '' : ` (${d.unit})`}`, d.better, show(d.baseline, d.unit), show(d.candidate, d.unit), deltaText(d), relText(d), verdict(d)]),
        ),
      );
    }
    if (c.by_turn) out.push('', 'TTFT by turn index (informational: not a regression check):', turnTable(c.by_turn));
    if (c.by_images) out.push('', 'TTFT by image count (informational: not a regression check):', turnTable(c.by_images, (i) => c.by_images![i].images, 'images'));
    for (const u of c.unmatched) out.push(`not compared: ${u}`);
    out.push(
      '',
      c.regressions.length
        ? `${c.regressions.length} regression(s) beyond ${res.threshold_pct}%: ${c.regressions.map((r) => (c.kind === 'sweep' ? `${r.metric} @ ${r.point}` : r.metric)).join('; ')}`
        : `no regressions beyond ${res.threshold_pct}%`,
      '',
    );
  }
  if (res.fail_on.length) out.push(res.failed ? `FAILED: --fail-on metrics regressed: ${[...new Set(res.failures.map((f) => f.metric))].join(', ')}` : `passed: no --fail-on metric (${res.fail_on.join(', ')}) regressed`);
  return out.join('\n').trimEnd();
}
