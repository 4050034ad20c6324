// A JSON array of records (ShareGPT files), read element by element from byte chunks: memory holds one element, not the file.
import type { RawRecord } from './jsonl.js';
import { MAX_LINE_BYTES, tooLong } from './lines.js';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** One element's bytes, JSON-parsed into a record or a problem (elements must be objects). */
function toRecord(bytes: Buffer, line: number, index: number): RawRecord {
  try {
    const v = JSON.parse(bytes.toString('utf8')) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { line, problem: `element ${index}: expected an object` };
    return { line, value: v as Record<string, unknown> };
  } catch (e) {
    return { line, problem: `not valid JSON: ${(e as Error).message.slice(0, 160)}` };
  }
}

/**
 * Records of a top-level JSON array, each with the line its element starts on. A small scanner (strings, escapes,
 * nesting) finds where each element ends, so one broken element costs only itself. All structural characters are
 * ASCII, so scanning UTF-8 bytes is safe. An element over `max` bytes throws, naming file:line.
 */
export function* jsonArrayRecords(chunks: Iterable<Buffer>, file: string, max = MAX_LINE_BYTES): Generator<RawRecord> {
  let line = 1;
  let depth = 0;
  let inStr = false;
  let esc = false;
  let started = false; // saw the opening '['
  let done = false; // saw the closing ']'
  let index = 0;
  let parts: Buffer[] | null = null; // the element being read (null: between elements)
  let partsLen = 0;
  let elemLine = 1;
  let trailing = false;
  let first = true;
  for (const buf of chunks) {
    let from = 0; // where the current element's bytes start in this chunk
    const bom = first && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
    first = false;
    for (let i = bom ? 3 : 0; i < buf.length; i++) {
      const b = buf[i];
      if (b === 0x0a) line++;
      if (done) {
        if (!WS.has(b) && !trailing) {
          trailing = true;
          yield { line, problem: 'unexpected text after the end of the array' };
        }
        continue;
      }
      if (inStr) {
        if (esc) esc = false;
        else if (b === 0x5c) esc = true;
        else if (b === 0x22) inStr = false;
        continue;
      }
      if (!started) {
        if (WS.has(b)) continue;
        if (b !== 0x5b) {
          yield { line, problem: 'expected a JSON array of conversations' };
          return;
        }
        started = true;
        depth = 1;
        continue;
      }
      const endsElement = depth === 1 && (b === 0x2c || b === 0x5d);
      if (endsElement) {
        if (parts) {
          parts.push(buf.subarray(from, i));
          yield toRecord(Buffer.concat(parts), elemLine, index++);
          parts = null;
          partsLen = 0;
        } else if (b === 0x2c) yield { line, problem: `element ${index++}: empty element` };
        if (b === 0x5d) {
          depth = 0;
          done = true;
        }
        continue;
      }
      if (depth === 1 && !parts && !WS.has(b)) {
        parts = [];
        from = i;
        elemLine = line;
      }
      if (b === 0x22) inStr = true;
      else if (b === 0x5b || b === 0x7b) depth++;
      else if (b === 0x5d || b === 0x7d) depth--;
    }
    if (parts) {
      // The element goes on in the next chunk: copy this part (the chunk buffer may be reused).
      partsLen += buf.length - from;
      if (partsLen > max) throw tooLong(`${file}:${elemLine}`, 'array element');
      parts.push(Buffer.from(buf.subarray(from)));
    }
  }
  if (parts) yield toRecord(Buffer.concat(parts), elemLine, index++); // unterminated array: the last element, likely broken
  else if (started && !done) yield { line, problem: 'not valid JSON: the array is not closed' };
  else if (!started) yield { line: 1, problem: 'expected a JSON array of conversations' };
}

/** Parse a JSON array held in a string (see jsonArrayRecords). */
export function readJsonArray(text: string, file = 'input'): RawRecord[] {
  return [...jsonArrayRecords([Buffer.from(text, 'utf8')], file)];
}
