// Empirical length files for `empirical:FILE`: a list of lengths, or a histogram of `length,count` lines.
import { readTextFile } from '../util/read-file.js';
import { MAX_LINE_BYTES } from './formats/lines.js';
import { UsageError } from '../errors.js';

/**
 * Read lengths from a text file: one length per line (each line weight 1), or `length,count` per line
 * (comma, tab or space separated) for a histogram. Blank lines and `#` comments are ignored, and a first
 * line that is not numeric is taken as a header. A JSON array of numbers is accepted too.
 * Every bad line is reported as `file:line`.
 */
export function loadEmpiricalFile(file: string): { values: number[]; weights: number[] } {
  const r = readTextFile(file, MAX_LINE_BYTES);
  if ('problem' in r) throw new UsageError([`${file}: cannot read: ${r.problem}`]);
  const text = r.text;
  if (text.trimStart().startsWith('[')) return fromJson(file, text);
  const values: number[] = [];
  const weights: number[] = [];
  const problems: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const parts = line.split(/[\s,;]+/);
    const nums = parts.map(Number);
    if (i === 0 && nums.some((n) => Number.isNaN(n))) return; // header
    const [v, w = 1] = nums;
    if (parts.length > 2 || !Number.isFinite(v) || v < 1 || !Number.isFinite(w) || w < 0)
      problems.push(`${file}:${i + 1}: expected "LENGTH" or "LENGTH,COUNT" with LENGTH >= 1 and COUNT >= 0, got "${raw.trim().slice(0, 80)}"`);
    else if (w > 0) {
      values.push(Math.round(v));
      weights.push(w);
    }
  });
  if (!problems.length && values.length === 0) problems.push(`${file}: no lengths found`);
  if (problems.length) throw new UsageError(problems);
  return { values, weights };
}

function fromJson(file: string, text: string): { values: number[]; weights: number[] } {
  let arr: unknown;
  try {
    arr = JSON.parse(text);
  } catch (e) {
    throw new UsageError([`${file}:1: not valid JSON: ${(e as Error).message}`]);
  }
  const list = arr as unknown[];
  const bad = list.findIndex((v) => typeof v !== 'number' || !Number.isFinite(v) || v < 1);
  if (bad >= 0) throw new UsageError([`${file}:1: element ${bad} is not a length >= 1: ${JSON.stringify(list[bad])}`]);
  if (!list.length) throw new UsageError([`${file}: no lengths found`]);
  return { values: (list as number[]).map(Math.round), weights: list.map(() => 1) };
}
