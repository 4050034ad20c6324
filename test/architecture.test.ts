// The module graph stays layered: no import cycles in src/, and no arrow up the stack (docs/architecture.md).
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { findCycles, readImportGraph, specifiersOf, type ImportEdge } from './import-graph.js';

const root = join(__dirname, '..');

/** Who may not import what; paths relative to the repository, a trailing `/` means the whole folder. */
const RULES: { from: string; except?: string[]; mayNotImport: string[]; why: string }[] = [
  { from: 'src/report/', mayNotImport: ['src/sweep/', 'src/run.ts', 'src/simulate.ts', 'src/cli/'], why: 'reporters read plain report models; run and sweep produce them' },
  { from: 'src/report/', mayNotImport: ['src/lifecycle/', 'src/drivers/'], why: 'reporters listen to the lifecycle through the events in report/events.ts; they never drive it' },
  { from: 'src/drivers/', mayNotImport: ['src/lifecycle/', 'src/run.ts', 'src/simulate.ts'], why: 'a driver is a clock and a backend: the lifecycle uses it, not the other way round' },
  { from: 'src/dataset/', mayNotImport: ['src/config/'], why: 'dataset/ declares the options it reads (WorkloadParams) and config/ supplies them' },
  { from: 'src/', except: ['src/cli/'], mayNotImport: ['src/cli/'], why: 'the CLI is the top: argv → config → run() → exit code' },
];

const within = (file: string, prefix: string): boolean => (prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix);

function violations(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const e of edges)
    for (const r of RULES)
      if (within(e.from, r.from) && !r.except?.some((x) => within(e.from, x)) && r.mayNotImport.some((x) => within(e.to, x)))
        out.push(`${e.from} imports ${e.to}${e.typeOnly ? ' (type only)' : ''}: ${r.why}`);
  return out;
}

describe('import graph of src/', () => {
  const graph = readImportGraph(root);

  it('is read in full: every file, relative .js specifiers resolved to .ts', () => {
    expect(graph.files).toContain('src/run.ts');
    expect(graph.files.some((f) => f.endsWith('.test.ts'))).toBe(false);
    // The lifecycle builds the workload (run.ts did, before the run spine moved it there).
    expect(graph.edges).toContainEqual({ from: 'src/lifecycle/lifecycle.ts', to: 'src/dataset/workload.ts', typeOnly: false });
    for (const e of graph.edges) expect(graph.files, `${e.from} → ${e.to}`).toContain(e.to);
  });

  it('has no import cycle, counting type-only imports', () => {
    expect(findCycles(graph.files, graph.edges)).toEqual([]);
  });

  it('has no arrow up the stack (type-only imports count too)', () => {
    expect(violations(graph.edges)).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('finds every cycle, a self-import included, and nothing in an acyclic graph', () => {
    const edges = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'c', to: 'd' },
      { from: 'e', to: 'e' },
    ];
    expect(findCycles(['a', 'b', 'c', 'd', 'e'], edges)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(findCycles(['a', 'b', 'c', 'd'], edges.slice(1))).toEqual([]);
  });

  it('sees every kind of import and marks the type-only ones', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "import { type C, type D } from './c.js';",
      "import { type E, e } from './e.js';",
      "export { f } from './f.js';",
      "export type { G } from './g.js';",
      "type H = import('./h.js').H;",
      "const i = await import('./i.js');",
      "import 'node:fs';",
    ].join('\n');
    expect(specifiersOf('x.ts', text)).toEqual([
      { spec: './a.js', typeOnly: false },
      { spec: './b.js', typeOnly: true },
      { spec: './c.js', typeOnly: true },
      { spec: './e.js', typeOnly: false },
      { spec: './f.js', typeOnly: false },
      { spec: './g.js', typeOnly: true },
      { spec: './h.js', typeOnly: true },
      { spec: './i.js', typeOnly: false },
      { spec: 'node:fs', typeOnly: false },
    ]);
  });

  it('reports an arrow up the stack, type-only or not', () => {
    const found = violations([
      { from: 'src/report/html/x.ts', to: 'src/sweep/row.ts', typeOnly: true },
      { from: 'src/dataset/x.ts', to: 'src/config/schema.ts', typeOnly: false },
      { from: 'src/run.ts', to: 'src/cli/io.ts', typeOnly: false },
      { from: 'src/cli/run.ts', to: 'src/cli/io.ts', typeOnly: false },
      { from: 'src/sweep/sweep.ts', to: 'src/report/html/sweep-report.ts', typeOnly: false },
    ]);
    expect(found.map((v) => v.slice(0, v.indexOf(':')))).toEqual([
      'src/report/html/x.ts imports src/sweep/row.ts (type only)',
      'src/dataset/x.ts imports src/config/schema.ts',
      'src/run.ts imports src/cli/io.ts',
    ]);
  });
});
