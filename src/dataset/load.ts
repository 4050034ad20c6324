// Load a dataset file (JSONL, ShareGPT JSON or CSV) into items: detect the format, map fields, group sessions, report bad lines.
import { closeSync, readSync } from 'node:fs';
import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { FIELD_KEYS, type DatasetItem, type FieldKey, type FieldMap, type ParsedDataset } from './items.js';
import { jsonlRecords, type RawRecord } from './formats/jsonl.js';
import { fileChunks, fileLines, textLines, type Line } from './formats/lines.js';
import { openRegularFile } from '../util/read-file.js';
import { jsonArrayRecords } from './formats/json-array.js';
import { csvRecords } from './formats/csv.js';
import { recordToItem, turnIndex } from './record.js';
import { MediaResolver, type MediaOptions } from './media-load.js';

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

/**
 * Turn records into items as they are read, so the parsed records of the whole file are never all held at once.
 * Media are checked and read as their record is (bad media go to `mediaProblems`: always fatal, unlike bad records).
 */
function collect(file: string, raw: Iterable<RawRecord>, map: FieldMap, media: MediaResolver): { rows: { item: DatasetItem; turn: number | undefined; line: number }[]; problems: string[]; mediaProblems: string[]; records: number } {
  const problems: string[] = [];
  const mediaProblems: string[] = [];
  const rows: { item: DatasetItem; turn: number | undefined; line: number }[] = [];
  let records = 0;
  for (const r of raw) {
    records++;
    const where = `${file}:${r.line}`;
    if (r.problem || !r.value) {
      problems.push(`${where}: ${r.problem ?? 'empty record'}`);
      continue;
    }
    const item = recordToItem(r.value, where, map);
    const turn = turnIndex(r.value, map);
    if (typeof item === 'string') problems.push(`${where}: ${item}`);
    else if (Number.isNaN(turn)) problems.push(`${where}: turn must be a number`);
    else {
      const bad = media.resolveItem(item);
      if (bad.length) mediaProblems.push(...bad.map((p) => `${where}: ${p}`));
      else rows.push({ item, turn, line: r.line });
    }
  }
  return { rows, problems, mediaProblems, records };
}

/** Records of a dataset in `fmt`, read from its lines (JSONL, CSV) or, for a JSON array, its byte chunks. */
function records(file: string, fmt: 'jsonl' | 'sharegpt' | 'csv', first: string, lines: () => Iterable<Line>, chunks: () => Iterable<Buffer>, nonBlank: { seen: boolean }): Iterable<RawRecord> {
  const watch = function* (src: Iterable<Line>): Generator<Line> {
    for (const l of src) {
      if (!nonBlank.seen && l.text.trim() !== '') nonBlank.seen = true;
      yield l;
    }
  };
  if (fmt === 'csv') return csvRecords(watch(lines()), extname(file).toLowerCase() === '.tsv' ? '\t' : ',', (n) => `${file}:${n}`);
  if (fmt === 'sharegpt' && first === '[') return jsonArrayRecords(chunks(), file);
  return jsonlRecords(watch(lines()));
}

function finish(file: string, fmt: 'jsonl' | 'sharegpt' | 'csv', c: ReturnType<typeof collect>, nonBlank: boolean): ParsedDataset {
  if (fmt === 'csv' && c.records === 0 && nonBlank) c.problems.push(`${file}:1: a CSV dataset needs a header row and at least one record`);
  return { items: groupSessions(c.rows), problems: c.problems, ...(c.mediaProblems.length ? { mediaProblems: c.mediaProblems } : {}), format: fmt, records: c.records };
}

/** Parse the text of a dataset file. Never throws for bad records: they come back in `problems`. */
export function parseDataset(file: string, text: string, format: DatasetFormat = 'auto', map: FieldMap = {}, media: MediaOptions = {}): ParsedDataset {
  const fmt = format === 'auto' ? detectFormat(file, text) : format;
  const nonBlank = { seen: false };
  const first = text.trimStart()[0] ?? '';
  const c = collect(file, records(file, fmt, first, () => textLines(text, file), () => [Buffer.from(text, 'utf8')], nonBlank), map, new MediaResolver(file, media));
  return finish(file, fmt, c, nonBlank.seen);
}

export interface DatasetOptions {
  format?: DatasetFormat;
  fields?: readonly string[];
  /** Fail on any bad record instead of skipping it. */
  strict?: boolean;
  /** The flag that named the file, for messages (default --dataset). */
  flag?: string;
  /** Media checks: --max-media-bytes and --media-hosts (docs/workloads.md#datasets-with-media). */
  media?: MediaOptions;
}

/** The first bytes of an open file that are not whitespace (read with pread, so the file position stays at 0). */
function head(fd: number): string {
  const buf = Buffer.alloc(4096);
  for (let pos = 0; pos < 1024 * 1024; pos += buf.length) {
    const n = readSync(fd, buf, 0, buf.length, pos);
    const t = buf.toString('utf8', 0, n).trimStart();
    if (t || n < buf.length) return t;
  }
  return '';
}

/**
 * Read and parse a dataset file. Throws UsageError when the file cannot be read, holds no usable item,
 * or (with `strict`) has any bad record — listing every bad `file:line` at once. JSONL and CSV are read line
 * by line, a JSON array element by element (a line or element over MAX_LINE_BYTES is an error naming file:line).
 */
export function loadDataset(file: string, o: DatasetOptions = {}): ParsedDataset {
  const flag = o.flag ?? '--dataset';
  const map = parseFieldMap(o.fields ?? []);
  const opened = openRegularFile(file);
  if ('problem' in opened) throw new UsageError([`${flag}: cannot read ${file}: ${opened.problem}`]);
  let parsed: ParsedDataset;
  try {
    const first = head(opened.fd)[0] ?? '';
    const fmt = (o.format ?? 'auto') === 'auto' ? detectFormat(file, first) : (o.format as 'jsonl' | 'sharegpt' | 'csv');
    const nonBlank = { seen: false };
    parsed = finish(file, fmt, collect(file, records(file, fmt, first, () => fileLines(opened.fd, file), () => fileChunks(opened.fd), nonBlank), map, new MediaResolver(file, o.media)), nonBlank.seen);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(e.problems.map((p) => (p.startsWith(flag) || p.startsWith('--') ? p : `${flag}: ${p}`)));
    throw new UsageError([`${flag}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`]);
  } finally {
    closeSync(opened.fd);
  }
  // Bad media stop the run whatever --strict says: a file that is not what the data claims is a broken dataset, not a stray line.
  if (parsed.mediaProblems?.length) throw new UsageError([...parsed.mediaProblems, ...(o.strict ? parsed.problems : [])]);
  if (o.strict && parsed.problems.length) throw new UsageError(parsed.problems);
  if (parsed.items.length === 0)
    throw new UsageError([`${flag}: ${file} holds no usable item`, ...parsed.problems.slice(0, 20)]);
  return parsed;
}
