// JSONL: one JSON object per line; yields each record with its line number, or the line's problem.
import { textLines, type Line } from './lines.js';

export interface RawRecord {
  line: number;
  value?: Record<string, unknown>;
  problem?: string;
}

/** Records from lines, one at a time (blank lines and `//` comments skipped). */
export function* jsonlRecords(lines: Iterable<Line>): Generator<RawRecord> {
  for (const { n, text } of lines) {
    const l = text.trim();
    if (!l || l.startsWith('//')) continue;
    try {
      const v = JSON.parse(l) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) yield { line: n, problem: 'expected a JSON object' };
      else yield { line: n, value: v as Record<string, unknown> };
    } catch (e) {
      yield { line: n, problem: `not valid JSON: ${(e as Error).message}` };
    }
  }
}

export function readJsonl(text: string, file = 'input'): RawRecord[] {
  return [...jsonlRecords(textLines(text, file))];
}
