// Terminal reporter for a sweep: one line per point as it finishes, then the points table and the findings.
import { fmt, pct, safeTerminalText, table } from '../report/format.js';
import { extraPercentileKeys, extraPercentileLabel, loadWords, rowPairLabel, type SweepDoc, type SweepRow } from '../report/sweep-model.js';
import { sweepWarnings } from '../report/sweep-warnings.js';
import { autoSearchLines } from './auto-terminal.js';

export function pointLine(r: SweepRow, index: number, total: number | undefined): string {
  const n = total ? `[${index + 1}/${total}]` : `[${index + 1}]`;
  if (r.status === 'failed') return `${n} ${r.name}: FAILED, not measured: ${r.error ?? 'could not run'}`;
  return `${n} ${r.name}${r.runs !== undefined ? ` (mean of ${r.runs} runs)` : ''}: ${fmt(r.output_throughput)} out tok/s, ${fmt(r.request_throughput)} req/s, TTFT p99 ${fmt(r.ttft_p99_ms)} ms, TPOT p99 ${fmt(r.tpot_p99_ms)} ms, errors ${pct(r.error_rate)}${r.client_bound ? ', CLIENT-BOUND' : ''}${r.slo_passed === null ? '' : r.slo_passed ? ', SLO ok' : `, SLO failed (${r.slo_failed.join(', ')})`}`;
}

export function renderSweep(doc: SweepDoc): string {
  const out: string[] = [];
  const hasSlo = doc.slo !== null;
  // Error texts and auto_stop reasons can quote the server: strip control sequences before they reach a terminal.
  const safe = (t: string) => safeTerminalText(t, 2000);
  if (doc.simulated) out.push('PREDICTION of the simulated engine model (virtual clock), not a measurement of a server: see docs/sim.md for what is modelled');
  for (const w of sweepWarnings(doc)) out.push(safe(`WARNING: ${w}`));
  if (out.length) out.push('');
  // --percentiles beyond the fixed columns, for TTFT and E2E (sweep.csv and the report have TPOT and ITL too).
  const extra = extraPercentileKeys(doc.points, ['ttft', 'e2e']);
  out.push(
    table(
      [doc.mode, 'in x out', 'ok', 'err', 'req/s', 'out tok/s', 'TTFT p50', 'TTFT p99', 'TPOT p99', 'E2E p99', 'goodput tok/s', ...extra.map(extraPercentileLabel), ...(hasSlo ? ['SLO', 'grade'] : [])],
      doc.points.map((r) => [
        // The open-loop profile's probes run closed loop: "c1 synchronous" in a column of rates.
        r.mode === doc.mode ? String(r.load) : `c${r.load}${r.auto_role ? ` ${r.auto_role}` : ''}`,
        r.lengths ?? rowPairLabel(r),
        r.status === 'failed' ? 'FAILED' : `${r.ok}/${r.requests}`,
        // A point that never ran measured nothing: "-", not a 0% error rate or 0 tok/s.
        r.status === 'failed' ? '-' : pct(r.error_rate),
        r.status === 'failed' ? '-' : fmt(r.request_throughput),
        r.status === 'failed' ? '-' : fmt(r.output_throughput),
        fmt(r.ttft_p50_ms),
        fmt(r.ttft_p99_ms),
        fmt(r.tpot_p99_ms),
        fmt(r.e2e_p99_ms),
        r.status === 'failed' ? '-' : fmt(r.goodput_tok_s),
        ...extra.map((k) => fmt(r.extra_percentiles?.[k] ?? null)),
        ...(hasSlo ? [r.status === 'failed' ? '-' : r.slo_passed ? 'ok' : 'FAIL', r.grade ?? '-'] : []),
      ]),
    ),
  );
  // sweep --runs N: the table's figures are means; where their spread is.
  const runs = [...new Set(doc.points.map((r) => r.runs).filter((n): n is number => n !== undefined))];
  if (runs.length) out.push('', `each point is the mean of ${runs.join(' or ')} runs: 95% intervals in sweep.json (ci95) and sweep.csv (*_ci_low, *_ci_high), each point's runs and their spread in points/<name>/runs.json`);
  for (const g of doc.insights) {
    out.push('', doc.insights.length > 1 ? `${rowPairLabel(g)}:` : 'findings:');
    for (const s of g.statements) out.push(safe(`  - ${s}`));
  }
  if (doc.auto_stop) for (const [k, v] of Object.entries(doc.auto_stop)) out.push(safe(`  --auto (${k}): ${v}`));
  for (const [k, g] of Object.entries(doc.then_grid ?? {}))
    out.push(
      g.knee === null
        ? `  --then-grid (${k}): no knee found (no acceptable load), no grid run`
        : `  --then-grid (${k}): knee ${loadWords(doc.mode, g.knee)} (from ${g.knee_from}); grid ${g.loads.join(', ')} (× ${g.factors.join(', ')})${g.reused.length ? `, ${g.reused.join(', ')} reused from the search` : ''}`,
    );
  for (const line of autoSearchLines(doc)) out.push(safe(line));
  return out.join('\n');
}
