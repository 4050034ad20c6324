// Load a dataset file (JSONL, ShareGPT JSON or CSV) into items: detect the format, map fields, group sessions, report bad lines.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { FIELD_KEYS, type DatasetItem, type FieldKey, type FieldMap, type ParsedDataset } from './items.js';
import { readJsonl, type RawRecord } from './formats/jsonl.js';
import { readJsonArray } from './formats/json-array.js';
import { readCsv } from './formats/csv.js';
import { recordToItem, turnIndex } from './record.js';

export type DatasetFormat = 'auto' | 'jsonl' | 'sharegpt' | 'csv';

/** Parse `--dataset-field prompt=question,max_tokens=len` (possibly repeated) into a mapping. */
export function parseFieldMap(entries: readonly string[]): FieldMap {
  const map: FieldMap = {};
  const problems: string[] = [];
  for (const part of entries.flatMap((e) => e.split(',')).map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim() as FieldKey;
    const col = part.slice(eq + 1).trim();
    if (eq <= 0 || !col) problems.push(`--dataset-field: expected KEY=COLUMN, got "${part}"`);
    else if (!FIELD_KEYS.includes(key)) problems.push(`--dataset-field: unknown key "${key}" (keys: ${FIELD_KEYS.join(', ')})`);
    else map[key] = col;
  }
  if (problems.length) throw new UsageError(problems);
  return map;
}

/** The format from the extension, else from the first character (`[` → ShareGPT JSON array, `{` → JSONL, else CSV). */
export function detectFormat(file: string, text: string): 'jsonl' | 'sharegpt' | 'csv' {
  const ext = extname(file).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.csv' || ext === '.tsv') return 'csv';
  const first = text.trimStart()[0];
  if (first === '[') return 'sharegpt';
  if (first === '{') return 'jsonl';
  return 'csv';
}

/**
 * Group records that carry a session id into one multi-turn item each (at the position of the first),
 * ordered by their `turn` field when given, else by file order.
 */
function groupSessions(rows: { item: DatasetItem; turn: number | undefined; line: number }[]): DatasetItem[] {
  const out: DatasetItem[] = [];
  const sessions = new Map<string, { item: DatasetItem; rows: typeof rows }>();
  for (const r of rows) {
    const id = r.item.session;
    if (id === undefined) {
      out.push(r.item);
      continue;
    }
    let s = sessions.get(id);
    if (!s) {
      s = { item: { ...r.item, turns: [] }, rows: [] };
      sessions.set(id, s);
      out.push(s.item);
    }
    s.rows.push(r);
  }
  for (const s of sessions.values()) {
    const sorted = [...s.rows].sort((a, b) => (a.turn ?? a.line) - (b.turn ?? b.line) || a.line - b.line);
    s.item.turns = sorted.flatMap((r) => r.item.turns);
  }
  return out;
}

/** Parse the text of a dataset file. Never throws for bad records: they come back in `problems`. */
export function parseDataset(file: string, text: string, format: DatasetFormat = 'auto', map: FieldMap = {}): ParsedDataset {
  const fmt = format === 'auto' ? detectFormat(file, text) : format;
  let raw: RawRecord[];
  if (fmt === 'csv') raw = readCsv(text, extname(file).toLowerCase() === '.tsv' ? '\t' : ',');
  else if (fmt === 'sharegpt' && text.trimStart().startsWith('[')) raw = readJsonArray(text);
  else raw = readJsonl(text);
  const problems: string[] = [];
  const rows: { item: DatasetItem; turn: number | undefined; line: number }[] = [];
  for (const r of raw) {
    const where = `${file}:${r.line}`;
    if (r.problem || !r.value) {
      problems.push(`${where}: ${r.problem ?? 'empty record'}`);
      continue;
    }
    const item = recordToItem(r.value, where, map);
    const turn = turnIndex(r.value, map);
    if (typeof item === 'string') problems.push(`${where}: ${item}`);
    else if (Number.isNaN(turn)) problems.push(`${where}: turn must be a number`);
    else rows.push({ item, turn, line: r.line });
  }
  if (fmt === 'csv' && raw.length === 0 && text.trim() !== '') problems.push(`${file}:1: a CSV dataset needs a header row and at least one record`);
  return { items: groupSessions(rows), problems, format: fmt, records: raw.length };
}

export interface DatasetOptions {
  format?: DatasetFormat;
  fields?: readonly string[];
  /** Fail on any bad record instead of skipping it. */
  strict?: boolean;
  /** The flag that named the file, for messages (default --dataset). */
  flag?: string;
}

/**
 * Read and parse a dataset file. Throws UsageError when the file cannot be read, holds no usable item,
 * or (with `strict`) has any bad record — listing every bad `file:line` at once.
 */
export function loadDataset(file: string, o: DatasetOptions = {}): ParsedDataset {
  const flag = o.flag ?? '--dataset';
  const map = parseFieldMap(o.fields ?? []);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError([`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  }
  const parsed = parseDataset(file, text, o.format ?? 'auto', map);
  if (o.strict && parsed.problems.length) throw new UsageError(parsed.problems);
  if (parsed.items.length === 0)
    throw new UsageError([`${flag}: ${file} holds no usable item`, ...parsed.problems.slice(0, 20)]);
  return parsed;
}
