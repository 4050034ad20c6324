// Every results-directory file is named in one place: src/artifacts/registry.ts. A file name literal elsewhere in src/ fails here.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ARTIFACTS, POINTS_DIR } from '../src/artifacts/registry.js';

const root = join(__dirname, '..');
const REGISTRY = 'src/artifacts/registry.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A string literal that is exactly one of the names: 'run.json', "run.json" or `run.json` (prose inside a longer string is fine). */
const literalOf = (names: readonly string[]): RegExp => new RegExp(`(['"\`])(?:${names.map(escape).join('|')})\\1`, 'g');

function offenders(names: readonly string[]): string[] {
  const re = literalOf(names);
  const out: string[] = [];
  for (const file of sources(join(root, 'src'))) {
    const rel = relative(root, file).split('\\').join('/');
    if (rel === REGISTRY) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(re)) out.push(`${rel}:${i + 1}: ${m[0]}`);
      });
  }
  return out;
}

describe('the artifact registry', () => {
  it('names every results file, once each', () => {
    const files = Object.values(ARTIFACTS).map((a) => a.file);
    expect(new Set(files).size).toBe(files.length);
    for (const f of ['run.json', 'requests.jsonl', 'summary.json', 'stats.csv', 'report.html', 'server_metrics.jsonl', 'gpu_metrics.jsonl', 'sweep.json', 'sweep.csv', 'eval.json', 'eval.jsonl', 'vllm-result.json', 'compare.html'])
      expect(files).toContain(f);
  });

  it('is the only place in src/ that spells a results file name as a string literal', () => {
    const names = Object.values(ARTIFACTS).map((a) => a.file);
    expect(offenders(names)).toEqual([]);
  });

  it('the check finds a literal in any quote and leaves prose alone', () => {
    const re = literalOf(['run.json']);
    expect("join(dir, 'run.json')".match(re)).toHaveLength(1);
    expect('x = "run.json"'.match(re)).toHaveLength(1);
    expect('`run.json`'.match(re)).toHaveLength(1);
    expect("'no run.json here'".match(re)).toBeNull();
    expect('`${dir}/run.json`'.match(re)).toBeNull();
    expect(POINTS_DIR).toBe('points');
  });
});
