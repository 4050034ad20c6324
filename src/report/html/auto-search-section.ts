// report.html section of an --auto sweep: each pair's search, run by run (sweep.json `auto_search`), with its bracket and precision.
import { describeMiss, type AutoSearchReport } from '../auto-search-model.js';
import { loadWords } from '../sweep-model.js';
import { htmlTable, num } from './sections.js';
import { escapeHtml as esc } from './escape.js';

const verdict = (passed: boolean | null): string | { html: string } =>
  passed === null ? '–' : { html: passed ? '<span class="pass">pass</span>' : '<span class="fail">FAIL</span>' };

/** One pair's outcome in words: an SLO search's bracket, precision, stop reason and runs; a profile's two measured rates. */
function outcome(r: AutoSearchReport): string {
  const runs = `${r.runs} run${r.runs === 1 ? '' : 's'}`;
  if (r.goal === 'profile')
    return `Open-loop profile: synchronous rate ${num(r.synchronous_rate)} req/s, throughput run ${num(r.max_rate)} req/s, rates between ${r.rates.map((x) => num(x)).join(', ') || '–'}; ${runs}.`;
  const [pass, fail] = r.bracket;
  const target = r.precision_target.kind === 'absolute' ? `${r.precision_target.value}` : `${r.precision_target.value * 100}%`;
  const p = r.precision_reached;
  const reached = p ? `${num(p.absolute)}${p.relative !== null ? ` (${(p.relative * 100).toFixed(1)}% of the highest passing load)` : ''}` : 'open (no bracket on one side)';
  return `SLO search: bracket [${pass ?? '–'}, ${fail ?? '–'}] (highest passing, lowest failing ${r.mode === 'rate' ? 'req/s' : 'concurrency'}); precision reached ${reached}, target ${target}; ${r.converged ? 'converged' : 'not converged'}; stopped by ${r.stop}; ${runs}.`;
}

/** The "Auto search" section, or undefined for a sweep without --auto. */
export function autoSearchSection(search: Record<string, AutoSearchReport> | null | undefined): { id: string; title: string; html: string } | undefined {
  const pairs = Object.entries(search ?? {});
  if (!pairs.length) return undefined;
  const html = pairs
    .map(([pair, r]) => {
      const rows = r.steps.map((x, i) => [
        String(i + 1),
        x.point,
        loadWords(x.mode, x.load),
        x.role ?? '',
        verdict(x.passed),
        { text: x.failed.length ? x.failed.map(describeMiss).join('; ') : '' },
      ]);
      return `<h3>${esc(pair)}</h3><p>${esc(outcome(r))}</p>${htmlTable(['run', 'point', 'load', 'role', 'SLOs', 'objectives missed (excess over the limit)'], rows)}`;
    })
    .join('');
  return { id: 'auto-search', title: 'Auto search, run by run', html: `<p class="muted">Every run of the --auto search in the order it ran (sweep.json auto_search; docs/commands/sweep.md#--auto).</p>${html}` };
}
