// A JSON array of records (ShareGPT files): parse it, and find the line each element starts on for error messages.
import type { RawRecord } from './jsonl.js';

const lineAt = (text: string, offset: number): number => {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
};

/** Offsets where each top-level array element starts (a small scanner that skips strings and nesting). */
function elementOffsets(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  let inStr = false;
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inStr) {
      if (ch === '\\') i++;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (expecting && !/\s/.test(ch) && ch !== ']') {
      out.push(i);
      expecting = false;
    }
    if (ch === '"') inStr = true;
    else if (ch === '[' || ch === '{') {
      depth++;
      if (depth === 1 && ch === '[') expecting = true;
    } else if (ch === ']' || ch === '}') depth--;
    else if (ch === ',' && depth === 1) expecting = true;
  }
  return out;
}

/** Parse each element on its own (after the whole array failed to parse), so one broken element costs only itself. */
function perElement(text: string, offsets: number[]): RawRecord[] {
  return offsets.map((start, i) => {
    const end = i + 1 < offsets.length ? offsets[i + 1] : text.length;
    let chunk = text.slice(start, end).trimEnd();
    chunk = i + 1 < offsets.length ? chunk.replace(/,$/, '') : chunk.replace(/\]$/, '').trimEnd();
    const line = lineAt(text, start);
    try {
      const v = JSON.parse(chunk) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) return { line, problem: `element ${i}: expected an object` };
      return { line, value: v as Record<string, unknown> };
    } catch (e) {
      return { line, problem: `not valid JSON: ${(e as Error).message.slice(0, 160)}` };
    }
  });
}

/** Parse a JSON array; bad elements (syntax or shape) are reported each with the line they start on. */
export function readJsonArray(text: string): RawRecord[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const offsets = text.trimStart().startsWith('[') ? elementOffsets(text) : [];
    if (offsets.length) return perElement(text, offsets);
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    return [{ line: pos ? lineAt(text, Number(pos[1])) : 1, problem: `not valid JSON: ${msg.slice(0, 160)}` }];
  }
  if (!Array.isArray(doc)) return [{ line: 1, problem: 'expected a JSON array of conversations' }];
  const offsets = elementOffsets(text);
  return doc.map((v, i) => {
    const line = offsets[i] !== undefined ? lineAt(text, offsets[i]) : 1;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { line, problem: `element ${i}: expected an object` };
    return { line, value: v as Record<string, unknown> };
  });
}
