// JSONL: one JSON object per line; yields each record with its line number, or the line's problem.
export interface RawRecord {
  line: number;
  value?: Record<string, unknown>;
  problem?: string;
}

export function readJsonl(text: string): RawRecord[] {
  const out: RawRecord[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l || l.startsWith('//')) continue;
    try {
      const v = JSON.parse(l) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) out.push({ line: i + 1, problem: 'expected a JSON object' });
      else out.push({ line: i + 1, value: v as Record<string, unknown> });
    } catch (e) {
      out.push({ line: i + 1, problem: `not valid JSON: ${(e as Error).message}` });
    }
  }
  return out;
}
