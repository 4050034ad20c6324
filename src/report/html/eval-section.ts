// The eval section of report.html: accuracy per slice with 95% intervals, per load level, and a few wrong answers (escaped).
import { existsSync, readFileSync } from 'node:fs';
import { htmlTable, pctText, tiles } from './sections.js';
import { escapeHtml as esc } from './escape.js';
import { ARTIFACTS, artifactPath } from '../../artifacts/registry.js';

/** What the section reads from eval.json (written by src/eval/); declared here so report/ does not depend on eval/. */
interface Acc {
  correct: number;
  total: number;
  accuracy: number;
  ci95: [number, number];
  errors: number;
}
interface EvalDoc {
  set: string;
  grading: string;
  items: number;
  overall: Acc;
  slices: Record<string, Record<string, Acc>>;
  consistency?: { repeat: number; identical_share: number; identical_extracted_share: number };
  levels?: Record<string, Acc & { p_value?: number; significant?: boolean }>;
}
interface WrongLine {
  item_id: string;
  gold: string;
  extracted: string | null;
  answer_text: string | null;
  status: string;
}

export interface EvalReportData {
  doc: EvalDoc;
  wrong: WrongLine[];
}

/** Wrong answers shown at most, and characters of each. */
const MAX_WRONG = 8;
const MAX_CHARS = 400;

/** eval.json and the first wrong answers in eval.jsonl, when the run was an eval; undefined otherwise or when unreadable. */
export function readEvalData(dir: string, warnings: string[]): EvalReportData | undefined {
  const file = artifactPath(dir, ARTIFACTS.eval);
  if (!existsSync(file)) return undefined;
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as EvalDoc;
    const wrong: WrongLine[] = [];
    const lines = artifactPath(dir, ARTIFACTS.evalAnswers);
    if (existsSync(lines))
      for (const l of readFileSync(lines, 'utf8').split('\n')) {
        if (wrong.length >= MAX_WRONG) break;
        if (!l.trim()) continue;
        const o = JSON.parse(l) as WrongLine & { correct: boolean };
        if (!o.correct) wrong.push(o);
      }
    return { doc, wrong };
  } catch (e) {
    warnings.push(`eval.json could not be read: ${(e as Error).message}`);
    return undefined;
  }
}

const ci = (a: Acc) => `${pctText(a.ci95[0])} – ${pctText(a.ci95[1])}`;
const row = (k: string, a: Acc) => [k, `${a.correct} / ${a.total}`, pctText(a.accuracy), ci(a), String(a.errors)];
const HEAD = ['', 'correct / items', 'accuracy', '95% interval (Wilson)', 'failed requests'];

export function evalSection(d: EvalReportData): { id: string; title: string; html: string } {
  const s = d.doc;
  const parts = [
    tiles([
      { label: `accuracy (${s.set}, ${s.grading})`, value: pctText(s.overall.accuracy) },
      { label: '95% interval', value: ci(s.overall) },
      { label: 'items', value: String(s.items) },
      ...(s.consistency ? [{ label: `identical answers over ${s.consistency.repeat} repeats`, value: pctText(s.consistency.identical_share) }] : []),
    ]),
  ];
  if (s.levels)
    parts.push(
      `<h3>By load level</h3>${htmlTable(
        [...HEAD, 'McNemar p vs idle'],
        Object.entries(s.levels).map(([k, a]) => [...row(k, a), a.p_value === undefined ? '–' : `${a.p_value.toPrecision(2)}${a.significant ? ' (significant drop)' : ''}`]),
      )}`,
    );
  for (const [field, values] of Object.entries(s.slices)) {
    const rows = Object.entries(values).sort((a, b) => a[1].accuracy - b[1].accuracy);
    if (rows.length < 2) continue;
    parts.push(`<h3>By ${esc(field)}</h3>${htmlTable(HEAD, rows.map(([k, a]) => row(k, a)))}`);
  }
  if (d.wrong.length)
    parts.push(
      `<h3>Some wrong answers</h3>${htmlTable(
        ['item', 'gold', 'extracted', 'answer text'],
        d.wrong.map((w) => [w.item_id, w.gold, w.extracted ?? (w.status === 'ok' ? '(none)' : w.status), { text: (w.answer_text ?? '').slice(0, MAX_CHARS) }]),
      )}`,
    );
  return { id: 'eval', title: 'Accuracy', html: `<p class="muted">Graded as docs/eval.md describes; failed requests count as wrong.</p>${parts.join('')}` };
}
