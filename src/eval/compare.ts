// Comparing two evals item by item: accuracy delta overall and per slice, McNemar's exact test on the paired items.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { EVAL_JSONL } from './file-names.js';
import { mcnemarExact } from './stats.js';

export interface EvalLine {
  item_id: string;
  repeat: number;
  correct: boolean;
  level?: string;
  slices: Record<string, string>;
}

/** Significance level at which a drop counts (docs/eval.md#significance). */
export const ALPHA = 0.05;

export interface PairedDelta {
  /** Items graded in both. */
  pairs: number;
  baseline_accuracy: number;
  candidate_accuracy: number;
  /** candidate − baseline, in percentage points. */
  delta_points: number;
  /** Right in the baseline, wrong in the candidate. */
  lost: number;
  /** Wrong in the baseline, right in the candidate. */
  gained: number;
  /** McNemar's exact two-sided p on (lost, gained). */
  p_value: number;
  significant: boolean;
}

export interface EvalComparison {
  baseline: string;
  candidate: string;
  overall: PairedDelta;
  slices: Record<string, Record<string, PairedDelta>>;
  /** With --fail-on accuracy_drop=N: the drop exceeds N points and is significant. */
  regressed: boolean;
  drop_threshold_points: number | null;
}

/** The first pass (repeat 0) of every item in DIR/eval.jsonl; `level` picks one load level of an under-load run. */
export function readEvalLines(dir: string, level?: string): EvalLine[] {
  const file = join(dir, EVAL_JSONL);
  if (!existsSync(file)) throw new UsageError([`${dir}: no ${EVAL_JSONL} (not the results of tokenflood eval)`]);
  const out: EvalLine[] = [];
  for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (!line.trim()) continue;
    let o: EvalLine;
    try {
      o = JSON.parse(line) as EvalLine;
    } catch {
      throw new UsageError([`${file}:${i + 1}: not a JSON line`]);
    }
    if (typeof o.item_id !== 'string' || typeof o.correct !== 'boolean') throw new UsageError([`${file}:${i + 1}: expected item_id and correct`]);
    if (o.repeat === 0 && (level === undefined || o.level === level)) out.push(o);
  }
  return out;
}

/** Paired statistics over items present in both lists. */
export function pairedDelta(base: readonly EvalLine[], cand: readonly EvalLine[]): PairedDelta {
  const c = new Map(cand.map((x) => [x.item_id, x.correct]));
  let pairs = 0, br = 0, cr = 0, lost = 0, gained = 0;
  for (const b of base) {
    const k = c.get(b.item_id);
    if (k === undefined) continue;
    pairs++;
    if (b.correct) br++;
    if (k) cr++;
    if (b.correct && !k) lost++;
    if (!b.correct && k) gained++;
  }
  const p = mcnemarExact(lost, gained);
  const ba = pairs ? br / pairs : 0;
  const ca = pairs ? cr / pairs : 0;
  return { pairs, baseline_accuracy: ba, candidate_accuracy: ca, delta_points: (ca - ba) * 100, lost, gained, p_value: p, significant: p < ALPHA };
}

/** Overall and per slice (every slice field of the baseline's items). */
export function compareEvalLines(baseline: string, candidate: string, base: readonly EvalLine[], cand: readonly EvalLine[], dropPoints?: number): EvalComparison {
  const overall = pairedDelta(base, cand);
  const slices: EvalComparison['slices'] = {};
  const fields = new Set(base.flatMap((x) => Object.keys(x.slices ?? {})));
  for (const f of [...fields].sort()) {
    const values = [...new Set(base.map((x) => x.slices?.[f]).filter((v): v is string => v !== undefined))].sort();
    if (values.length < 2 && f !== 'set') continue;
    slices[f] = Object.fromEntries(values.map((v) => [v, pairedDelta(base.filter((x) => x.slices?.[f] === v), cand.filter((x) => x.slices?.[f] === v))]));
  }
  if (overall.pairs === 0) throw new UsageError([`${candidate}: no item in common with ${baseline} (different sets?)`]);
  const regressed = dropPoints !== undefined && -overall.delta_points > dropPoints && overall.significant && overall.lost > overall.gained;
  return { baseline, candidate, overall, slices, regressed, drop_threshold_points: dropPoints ?? null };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;

export function deltaText(d: PairedDelta): string {
  return `${pct(d.baseline_accuracy)} → ${pct(d.candidate_accuracy)} (${sign(d.delta_points)} points, ${d.lost} lost / ${d.gained} gained of ${d.pairs}, McNemar p = ${d.p_value < 0.0001 ? d.p_value.toExponential(1) : d.p_value.toFixed(4)}${d.significant ? ', significant' : ''})`;
}

/** Terminal text: overall, then the slices whose change is significant (or the 5 largest drops). */
export function renderEvalComparison(c: EvalComparison): string {
  const lines = [`accuracy ${c.candidate} vs ${c.baseline}: ${deltaText(c.overall)}${c.regressed ? `  REGRESSED (more than ${c.drop_threshold_points} points)` : ''}`];
  for (const [f, values] of Object.entries(c.slices)) {
    const rows = Object.entries(values).sort((a, b) => a[1].delta_points - b[1].delta_points);
    const shown = rows.filter(([, d]) => d.significant);
    for (const [v, d] of (shown.length ? shown : rows.slice(0, 5))) lines.push(`  ${f} ${v}: ${deltaText(d)}`);
  }
  return lines.join('\n');
}
