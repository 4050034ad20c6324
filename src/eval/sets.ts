// Graded eval sets: the four shipped in data/evalsets and a user's own JSONL, read and checked before anything is sent.
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UsageError } from '../errors.js';
import type { GradeMode } from './grade.js';
import { packagePath } from '../package-root.js';

export const SHIPPED_SETS = ['gsm8k', 'math500-numeric', 'mmlu', 'gaokao-mcq'] as const;
export type ShippedSet = (typeof SHIPPED_SETS)[number];

const setsDir = packagePath('data', 'evalsets');

export interface EvalItem {
  id: string;
  question: string;
  /** The gold answer as a string (a number, a letter A–D, or text). */
  answer: string;
  /** Options in order A, B, C, ... (multiple choice only). */
  choices?: string[];
  /** Fields that accuracy is broken down by: set and subject for shipped sets, any other string/number field of a user's line. */
  slices: Record<string, string>;
}

export interface EvalSet {
  name: string;
  items: EvalItem[];
  /** numeric when every gold answer is a plain number, choice when every item has choices, else exact. */
  mode: GradeMode;
  /** Chinese prompts (gaokao-mcq, or a user set whose questions are mostly CJK). */
  zh: boolean;
}

const NUMERIC_GOLD = /^-?\d+(\.\d+)?$/;
const RESERVED = new Set(['id', 'question', 'answer', 'choices', 'source']);

/** The path of a shipped set's JSONL. */
export function shippedSetPath(name: ShippedSet): string {
  return join(setsDir, `${name}.jsonl`);
}

/** Read a set by shipped name or file path; every bad line is reported at once (file:line), as a UsageError naming `flag`. */
export function loadEvalSet(nameOrFile: string, flag = '--set'): EvalSet {
  const shipped = (SHIPPED_SETS as readonly string[]).includes(nameOrFile);
  const file = shipped ? shippedSetPath(nameOrFile as ShippedSet) : nameOrFile;
  if (!shipped && !existsSync(file)) throw new UsageError([`${flag}: "${nameOrFile}" is neither a shipped set (${SHIPPED_SETS.join(', ')}) nor a readable file`]);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError([`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  const name = shipped ? nameOrFile : basename(file).replace(/\.jsonl?$/i, '');
  const problems: string[] = [];
  const items: EvalItem[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const where = `${flag} ${file}:${i + 1}`;
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch {
      problems.push(`${where}: not a JSON object`);
      return;
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) return void problems.push(`${where}: not a JSON object`);
    const r = o as Record<string, unknown>;
    if (typeof r.question !== 'string' || !r.question.trim()) return void problems.push(`${where}: "question" must be a non-empty string`);
    if (typeof r.answer !== 'string' && typeof r.answer !== 'number') return void problems.push(`${where}: "answer" must be a string or a number`);
    if (r.choices !== undefined && (!Array.isArray(r.choices) || r.choices.length < 2 || r.choices.length > 26 || !r.choices.every((c) => typeof c === 'string')))
      return void problems.push(`${where}: "choices" must be a list of 2 to 26 strings`);
    const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : `${name}/${items.length}`;
    if (ids.has(id)) return void problems.push(`${where}: duplicate id "${id}"`);
    ids.add(id);
    const slices: Record<string, string> = { set: name };
    // The shipped ids are set/subject/row: the middle part is the subject.
    const parts = id.split('/');
    if (shipped && parts.length === 3 && name !== 'gsm8k') slices.subject = parts[1];
    for (const [k, v] of Object.entries(r)) if (!RESERVED.has(k) && (typeof v === 'string' || typeof v === 'number')) slices[k] = String(v);
    const answer = String(r.answer).trim();
    const choices = r.choices as string[] | undefined;
    if (choices && !/^[A-Z]$/.test(answer.toUpperCase())) return void problems.push(`${where}: with "choices", "answer" must be a letter (A, B, ...), got "${answer.slice(0, 20)}"`);
    items.push({ id, question: r.question, answer: choices ? answer.toUpperCase() : answer, ...(choices ? { choices } : {}), slices });
  });
  if (!problems.length && !items.length) problems.push(`${flag}: ${file} holds no items`);
  if (problems.length) throw new UsageError(problems.slice(0, 20).concat(problems.length > 20 ? [`${flag}: ... and ${problems.length - 20} more bad lines`] : []));
  const mode: GradeMode = items.every((x) => x.choices) ? 'choice' : items.every((x) => NUMERIC_GOLD.test(x.answer)) ? 'numeric' : 'exact';
  const cjk = items.filter((x) => /[\u4e00-\u9fff]/.test(x.question)).length;
  return { name, items, mode, zh: cjk * 2 > items.length };
}
