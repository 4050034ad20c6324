// Terminal lines of an --auto --slo search: one per run, in the order run, with its verdict and what it missed by how much.
import { describeMiss } from '../report/auto-search-model.js';
import { loadWords, type SweepDoc } from '../report/sweep-model.js';

export function autoSearchLines(doc: SweepDoc): string[] {
  const out: string[] = [];
  for (const [pair, r] of Object.entries(doc.auto_search ?? {})) {
    if (r.goal !== 'slo') continue;
    out.push(`  --auto --slo (${pair}) runs, in order:`);
    r.steps.forEach((x, i) => {
      const verdict = x.passed ? 'pass' : `FAIL ${x.failed.map(describeMiss).join(', ')}`;
      out.push(`    ${i + 1}. ${loadWords(x.mode, x.load)}${x.role ? ` (${x.role} probe)` : ''}: ${verdict}`);
    });
  }
  return out;
}
