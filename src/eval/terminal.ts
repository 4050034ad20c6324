// The eval summary on the terminal: accuracy with its interval, the slices, consistency and load levels.
import type { Accuracy, EvalSummary } from './summary.js';

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

export function accuracyText(a: Accuracy): string {
  const extra = [a.errors ? `${a.errors} failed` : '', a.unextracted ? `${a.unextracted} without an answer` : ''].filter(Boolean).join(', ');
  return `${pct(a.accuracy)} (${a.correct}/${a.total}, 95% CI ${pct(a.ci95[0])}–${pct(a.ci95[1])})${extra ? `, ${extra}` : ''}`;
}

/** At most `maxRows` rows per slice field, the weakest first: where a regression would show. */
export function renderEval(s: EvalSummary, maxRows = 8): string {
  const lines = [`eval ${s.set} (${s.grading} grading, ${s.items} items): accuracy ${accuracyText(s.overall)}`];
  for (const [field, values] of Object.entries(s.slices)) {
    const rows = Object.entries(values);
    if (rows.length < 2) continue;
    rows.sort((a, b) => a[1].accuracy - b[1].accuracy);
    lines.push(`  by ${field}${rows.length > maxRows ? ` (${maxRows} weakest of ${rows.length})` : ''}:`);
    const w = Math.min(40, Math.max(...rows.map(([k]) => k.length)));
    for (const [k, a] of rows.slice(0, maxRows)) lines.push(`    ${k.slice(0, 40).padEnd(w)}  ${accuracyText(a)}`);
  }
  if (s.consistency)
    lines.push(`  consistency over ${s.consistency.repeat} repeats: ${pct(s.consistency.identical_share)} of items gave identical answers, ${pct(s.consistency.identical_extracted_share)} the same extracted answer`);
  return lines.join('\n');
}
