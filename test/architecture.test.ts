// The module graph stays layered: every folder of src/ has a layer, every import points down or sideways, no loops (docs/architecture.md).
import { describe, it, expect } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findCycles, readImportGraph, specifiersOf, type ImportEdge } from './import-graph.js';

const root = join(__dirname, '..');

/** One row of the table: a folder of src/ (`src/x/`, its subfolders with it) or a top-level file. */
interface Row {
  unit: string;
  /** The row's subfolders, each on disk: a subfolder is part of its folder's layer (a loop between the two is its own business). */
  subfolders?: string[];
  /** Edges up the stack this row may still take, each with its reason (none today: a new one needs a why). */
  mayAlsoImport?: { to: string; why: string }[];
}

/** The layers, bottom first: a file may import from its own layer or a lower one; docs/architecture.md § Layers. */
const LAYERS: { layer: string; rows: Row[] }[] = [
  { layer: 'base', rows: [{ unit: 'src/errors.ts' }, { unit: 'src/version.ts' }, { unit: 'src/package-root.ts' }] },
  { layer: 'util', rows: [{ unit: 'src/util/' }] },
  { layer: 'metrics', rows: [{ unit: 'src/metrics/', subfolders: ['registry/', 'inference/'] }] },
  { layer: 'dataset, scheduler', rows: [{ unit: 'src/dataset/', subfolders: ['formats/', 'trace/', 'trace/formats/', 'trace/replay/'] }, { unit: 'src/scheduler/', subfolders: ['executors/'] }] },
  { layer: 'backends, artifacts', rows: [{ unit: 'src/backends/', subfolders: ['h1/', 'ws/'] }, { unit: 'src/artifacts/' }] },
  { layer: 'eval, telemetry', rows: [{ unit: 'src/eval/' }, { unit: 'src/telemetry/', subfolders: ['gpu/'] }] },
  { layer: 'sim', rows: [{ unit: 'src/sim/', subfolders: ['engine/', 'http/'] }] },
  { layer: 'config', rows: [{ unit: 'src/config/' }] },
  { layer: 'shard, target, report', rows: [{ unit: 'src/shard/' }, { unit: 'src/target.ts' }, { unit: 'src/report/', subfolders: ['compat/', 'html/', 'live/'] }] },
  { layer: 'drivers, ui', rows: [{ unit: 'src/drivers/' }, { unit: 'src/ui/' }] },
  { layer: 'lifecycle', rows: [{ unit: 'src/lifecycle/' }, { unit: 'src/outdir.ts' }] },
  { layer: 'run', rows: [{ unit: 'src/run.ts' }] },
  { layer: 'simulate', rows: [{ unit: 'src/simulate.ts' }] },
  { layer: 'commands', rows: [{ unit: 'src/calibrate/' }, { unit: 'src/eval-run/' }, { unit: 'src/sweep/' }, { unit: 'src/runs/' }, { unit: 'src/merge/' }, { unit: 'src/k8s/' }] },
  { layer: 'entry points', rows: [{ unit: 'src/index.ts' }, { unit: 'src/cli/' }] },
];

/** config/ composes the options the lower layers declare; from these folders it may import their `options.ts` files only. */
const OPTION_OWNERS = ['src/eval/', 'src/sim/', 'src/scheduler/', 'src/telemetry/'];
const isOptionFile = (file: string): boolean => file.endsWith('/options.ts');

interface Table {
  layers: { layer: string; rows: Row[] }[];
}

const TABLE: Table = { layers: LAYERS };

/** The unit of a path: a top-level file itself, else its folder under src/ (`src/sim/engine/x.ts` → `src/sim/`). */
const unitOf = (path: string): string => {
  const parts = path.split('/');
  return parts.length === 2 ? path : `${parts[0]}/${parts[1]}/`;
};

function levels(t: Table): Map<string, { level: number; row: Row }> {
  const m = new Map<string, { level: number; row: Row }>();
  t.layers.forEach((l, level) => l.rows.forEach((row) => m.set(row.unit, { level, row })));
  return m;
}

/** Every folder under src/ (`x/`) and every `.ts` file that is not a test. */
function pathsOnDisk(dir = join(root, 'src'), rel = 'src/'): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(`${rel}${e.name}/`, ...pathsOnDisk(join(dir, e.name), `${rel}${e.name}/`));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(`${rel}${e.name}`);
  }
  return out;
}

/** (1) The table and the disk agree: every unit and subfolder on disk has a row, every row is on disk. */
function tableProblems(onDisk: readonly string[], t: Table = TABLE): string[] {
  const found = new Set<string>();
  for (const p of onDisk) {
    found.add(unitOf(p));
    if (p.endsWith('/') && p !== unitOf(p)) found.add(p);
  }
  const listed = new Set<string>();
  for (const l of t.layers) for (const r of l.rows) listed.add(r.unit), r.subfolders?.forEach((f) => listed.add(r.unit + f));
  const out: string[] = [];
  for (const u of found) if (!listed.has(u)) out.push(`${u} is on disk but has no row in LAYERS`);
  for (const u of listed) if (!found.has(u)) out.push(`${u} has a row in LAYERS but is not on disk (renamed or removed?)`);
  return out;
}

/** (2), (4), (5): each import against the table, with the rule it breaks. */
function violations(edges: readonly ImportEdge[], t: Table = TABLE): string[] {
  const rows = levels(t);
  const out: string[] = [];
  for (const e of edges) {
    const { from, to } = e;
    const what = `${e.from} imports ${e.to}${e.typeOnly ? ' (type only)' : ''}`;
    const a = rows.get(unitOf(from));
    const b = rows.get(unitOf(to));
    if (!a || !b) {
      out.push(`${what}: ${!a ? unitOf(from) : unitOf(to)} has no row in LAYERS`);
      continue;
    }
    if (to.startsWith('src/cli/') && !from.startsWith('src/cli/')) out.push(`${what}: nothing imports cli/ (argv → config → run() → exit code)`);
    else if (b.level > a.level && !a.row.mayAlsoImport?.some((x) => (x.to.endsWith('/') ? to.startsWith(x.to) : to === x.to)))
      out.push(`${what}: up the stack (${t.layers[a.level].layer} → ${t.layers[b.level].layer})`);
    if (from.startsWith('src/config/') && OPTION_OWNERS.some((o) => to.startsWith(o)) && !isOptionFile(to))
      out.push(`${what}: config/ composes option schemas; it imports only the options.ts files of ${OPTION_OWNERS.join(', ')}`);
  }
  return out;
}

/** (3) Loops between units (folders and top-level files), each as its units. */
function unitLoops(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const u = unitOf;
  const units = [...new Set(files.map(u))].sort();
  const between = edges.map((e) => ({ from: u(e.from), to: u(e.to) })).filter((e) => e.from !== e.to);
  return findCycles(units, between);
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

  it('has a row in LAYERS for every folder and top-level file, and every row is on disk', () => {
    expect(tableProblems(pathsOnDisk())).toEqual([]);
  });

  it('has no import cycle, counting type-only imports', () => {
    expect(findCycles(graph.files, graph.edges)).toEqual([]);
  });

  it('has no loop between folders', () => {
    expect(unitLoops(graph.files, graph.edges)).toEqual([]);
  });

  it('has no import against the table (type-only imports count too)', () => {
    expect(violations(graph.edges)).toEqual([]);
  });
});

describe('the checker itself', () => {
  const toy: Table = {
    layers: [
      { layer: 'low', rows: [{ unit: 'src/util/' }, { unit: 'src/errors.ts' }] },
      { layer: 'mid', rows: [{ unit: 'src/sim/', subfolders: ['engine/'] }, { unit: 'src/metrics/' }] },
      { layer: 'config', rows: [{ unit: 'src/config/' }, { unit: 'src/report/', mayAlsoImport: [{ to: 'src/run.ts', why: 'test' }] }] },
      { layer: 'top', rows: [{ unit: 'src/run.ts' }, { unit: 'src/cli/' }, { unit: 'src/next/' }] },
    ],
  };

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

  it('reports an import against the table, type-only or not, and lets same-layer, downward and allowed edges pass', () => {
    const found = violations(
      [
        { from: 'src/util/x.ts', to: 'src/metrics/y.ts', typeOnly: true },
        { from: 'src/sim/x.ts', to: 'src/config/schema.ts', typeOnly: false },
        { from: 'src/run.ts', to: 'src/cli/io.ts', typeOnly: false },
        { from: 'src/config/x.ts', to: 'src/sim/engine.ts', typeOnly: true },
        { from: 'src/sim/x.ts', to: 'src/somewhere/y.ts', typeOnly: false },
        { from: 'src/cli/run.ts', to: 'src/cli/io.ts', typeOnly: false },
        { from: 'src/sim/x.ts', to: 'src/metrics/y.ts', typeOnly: false },
        { from: 'src/sim/engine/x.ts', to: 'src/sim/y.ts', typeOnly: false },
        { from: 'src/run.ts', to: 'src/util/y.ts', typeOnly: false },
        { from: 'src/config/x.ts', to: 'src/sim/options.ts', typeOnly: false },
        { from: 'src/report/x.ts', to: 'src/run.ts', typeOnly: false },
        { from: 'src/next/x.ts', to: 'src/run.ts', typeOnly: false },
      ],
      toy,
    );
    expect(found.map((v) => v.slice(0, v.indexOf(':')))).toEqual([
      'src/util/x.ts imports src/metrics/y.ts (type only)',
      'src/sim/x.ts imports src/config/schema.ts',
      'src/run.ts imports src/cli/io.ts',
      'src/config/x.ts imports src/sim/engine.ts (type only)',
      'src/sim/x.ts imports src/somewhere/y.ts',
    ]);
  });

  it('reports a folder with no row, and a row whose folder or subfolder is missing or renamed', () => {
    const disk = ['src/util/', 'src/util/u.ts', 'src/errors.ts', 'src/sim/', 'src/sim/engine/', 'src/next/', 'src/next/o.ts', 'src/metrics/', 'src/config/', 'src/report/', 'src/run.ts', 'src/cli/'];
    expect(tableProblems(disk, toy)).toEqual([]);
    const renamed = disk.map((u) => (u === 'src/metrics/' ? 'src/measures/' : u === 'src/sim/engine/' ? 'src/sim/model/' : u));
    expect(tableProblems(renamed, toy)).toEqual([
      'src/sim/model/ is on disk but has no row in LAYERS',
      'src/measures/ is on disk but has no row in LAYERS',
      'src/sim/engine/ has a row in LAYERS but is not on disk (renamed or removed?)',
      'src/metrics/ has a row in LAYERS but is not on disk (renamed or removed?)',
    ]);
    expect(tableProblems(disk.filter((u) => u !== 'src/run.ts'), toy)).toEqual(['src/run.ts has a row in LAYERS but is not on disk (renamed or removed?)']);
  });

  it('finds a loop between folders that no file-level cycle shows', () => {
    const files = ['src/sim/a.ts', 'src/sim/engine/b.ts', 'src/metrics/c.ts'];
    const edges = [
      { from: 'src/sim/a.ts', to: 'src/metrics/c.ts', typeOnly: false },
      { from: 'src/metrics/c.ts', to: 'src/sim/engine/b.ts', typeOnly: true },
    ];
    expect(findCycles(files, edges)).toEqual([]);
    expect(unitLoops(files, edges)).toEqual([['src/metrics/', 'src/sim/']]);
    expect(unitLoops(files, edges.slice(1))).toEqual([]);
  });
});
