// The aggregate of a repeated run as text: the terminal table after the last run, and runs.txt.
import { fmt, pct, table } from '../report/format.js';
import type { RunsDoc } from './model.js';

/** "3 of 3 runs, cool-down 5 s, fresh prompts per run": what the aggregate rests on. */
export function runsHeadline(doc: RunsDoc): string {
  const excluded = doc.runs.filter((r) => !r.included);
  return [
    `repeated runs: ${doc.runs_completed} of ${doc.runs_requested} completed${doc.interrupted ? ' (interrupted)' : ''}`,
    `cool-down ${doc.cooldown_s} s`,
    doc.dataset_seed === null ? 'fresh prompts per run' : `identical prompts in every run (--dataset-seed ${doc.dataset_seed})`,
    ...(doc.embedded_server ? ['one embedded simulated server for all runs'] : []),
    ...(excluded.length ? [`left out of the aggregate: ${excluded.map((r) => `${r.dir} (${r.stopped_reason})`).join(', ')}`] : []),
  ].join(', ');
}

/** metric | mean ± half-width of the 95% t-interval | CV | flag; with the per-run values. */
export function renderRuns(doc: RunsDoc): string {
  if (doc.runs_completed === 0) return `${runsHeadline(doc)}\n\nno run completed: nothing to aggregate`;
  const rows = Object.values(doc.metrics).map((m) => {
    const half = m.ci95 ? (m.ci95[1] - m.ci95[0]) / 2 : null;
    const ratio = m.unit === 'ratio';
    const show = (x: number | null) => (x === null ? '-' : ratio ? pct(x) : fmt(x));
    return [
      `${m.label} (${m.unit})`,
      `${show(m.mean)}${half === null ? '' : ` ± ${show(half)}`}`,
      m.cv === null ? '-' : pct(m.cv),
      m.unreliable ? `UNRELIABLE${m.cv !== null && m.cv_limit !== null && m.cv > m.cv_limit ? ` (CV > ${pct(m.cv_limit)})` : ''}` : '',
      m.values.map(show).join(' '),
    ];
  });
  const lines = [runsHeadline(doc), '', table(['metric', `mean ± ${Math.round(doc.confidence * 100)}% CI`, 'CV', 'flag', 'per run'], rows)];
  if (doc.runs_completed < 2) lines.push('', 'one completed run: no spread between runs and no intervals; every judged metric is flagged (docs/metrics.md#repeated-runs)');
  else if (doc.unreliable.length)
    lines.push('', `${doc.unreliable.length} metric${doc.unreliable.length > 1 ? 's vary' : ' varies'} too much between runs to be trusted at this size: more runs, longer runs or a quieter machine (docs/metrics.md#repeated-runs)`);
  return lines.join('\n');
}
