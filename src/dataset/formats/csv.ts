// CSV (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes): header row, then records with their line numbers.
import type { RawRecord } from './jsonl.js';

/** Split CSV text into rows of fields; each row carries the line it starts on. Tab-separated when `sep` is '\t'. */
export function csvRows(text: string, sep = ','): { line: number; fields: string[]; problem?: string }[] {
  const rows: { line: number; fields: string[]; problem?: string }[] = [];
  let line = 1;
  let i = 0;
  if (text.charCodeAt(0) === 0xfeff) i = 1;
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

/** Records keyed by header name; rows with the wrong number of fields are problems. */
export function readCsv(text: string, sep = ','): RawRecord[] {
  const rows = csvRows(text, sep);
  if (!rows.length) return [];
  const header = rows[0].fields.map((h) => h.trim());
  return rows.slice(1).map((r) => {
    if (r.problem) return { line: r.line, problem: r.problem };
    if (r.fields.length !== header.length)
      return { line: r.line, problem: `expected ${header.length} fields (${header.join(',')}), got ${r.fields.length}` };
    const value: Record<string, unknown> = {};
    header.forEach((h, j) => (value[h] = r.fields[j]));
    return { line: r.line, value };
  });
}
