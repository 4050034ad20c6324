// CSV (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes): header row, then records with their line numbers.
import type { RawRecord } from './jsonl.js';
import { MAX_LINE_BYTES, textLines, tooLong, type Line } from './lines.js';

/** Split CSV text into rows of fields; each row carries the line it starts on. Tab-separated when `sep` is '\t'. */
export function csvRows(text: string, sep = ',', skipBom = true): { line: number; fields: string[]; problem?: string }[] {
  const rows: { line: number; fields: string[]; problem?: string }[] = [];
  let line = 1;
  let i = 0;
  if (skipBom && text.charCodeAt(0) === 0xfeff) i = 1;
  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    let problem: string | undefined;
    for (;;) {
      if (i >= text.length) {
        if (quoted) problem = 'unterminated quoted field';
        fields.push(field);
        break;
      }
      const ch = text[i];
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            quoted = false;
            i++;
          }
        } else {
          if (ch === '\n') line++;
          field += ch;
          i++;
        }
      } else if (ch === '"' && field === '') {
        quoted = true;
        i++;
      } else if (ch === sep) {
        fields.push(field);
        field = '';
        i++;
      } else if (ch === '\n' || ch === '\r') {
        fields.push(field);
        if (ch === '\r' && text[i + 1] === '\n') i++;
        i++;
        line++;
        break;
      } else {
        field += ch;
        i++;
      }
    }
    if (fields.length === 1 && fields[0] === '' && !problem) continue; // blank line
    rows.push({ line: start, fields, problem });
  }
  return rows;
}

/**
 * CSV records from lines. Physical lines are joined while a quoted field is open (the same quote rules as csvRows),
 * so a record with line breaks in quotes is parsed whole and memory holds one record at a time.
 */
export function* csvRecords(lines: Iterable<Line>, sep = ',', where: (line: number) => string = String): Generator<RawRecord> {
  let header: string[] | undefined;
  let parts: string[] = [];
  let partsLen = 0;
  let start = 1;
  let quoted = false;
  let nonEmpty = false;
  function* emit(rec: string): Generator<RawRecord> {
    for (const r of csvRows(rec, sep, start === 1)) {
      const line = r.line + start - 1;
      if (!header) header = r.fields.map((h) => h.trim());
      else if (r.problem) yield { line, problem: r.problem };
      else if (r.fields.length !== header.length) yield { line, problem: `expected ${header.length} fields (${header.join(',')}), got ${r.fields.length}` };
      else {
        const value: Record<string, unknown> = {};
        header.forEach((h, j) => (value[h] = r.fields[j]));
        yield { line, value };
      }
    }
  }
  for (const { n, text } of lines) {
    if (!parts.length) start = n;
    // Follow the quote state as csvRows does: a quote opens a field only at its start, "" is a quote inside one.
    for (let i = n === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length; i++) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') i++;
        else if (ch === '"') {
          quoted = false;
          continue;
        }
        nonEmpty = true;
      } else if (ch === '"' && !nonEmpty) quoted = true;
      else nonEmpty = !(ch === sep || ch === '\r');
    }
    parts.push(text);
    partsLen += text.length + 1;
    if (partsLen > MAX_LINE_BYTES) throw tooLong(where(start), 'record');
    if (quoted) continue; // the line break is inside a quoted field
    const rec = parts.join('\n');
    parts = [];
    partsLen = 0;
    nonEmpty = false;
    yield* emit(rec);
  }
  if (parts.length) yield* emit(parts.join('\n')); // an unterminated quoted field: csvRows reports it
}

/** Records keyed by header name; rows with the wrong number of fields are problems. */
export function readCsv(text: string, sep = ','): RawRecord[] {
  return [...csvRecords(textLines(text, 'input'), sep)];
}
