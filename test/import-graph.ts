// The import graph of src/ read with the TypeScript compiler API, and its import cycles (strongly connected components).
import ts from 'typescript';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname, relative, resolve, sep } from 'node:path';

/** One edge: `from` imports `to` (both paths relative to the root, `/`-separated). */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
}

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTs(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/** Every module specifier of a file: static imports/exports, `import type`, `import('x')` calls and `import('x').T` types. */
export function specifiersOf(fileName: string, text: string): { spec: string; typeOnly: boolean }[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const allTypeNames = !!named && named.length > 0 && !clause!.name && named.every((e) => e.isTypeOnly);
      found.push({ spec: node.moduleSpecifier.text, typeOnly: !!clause?.isTypeOnly || allTypeNames });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ spec: arg.text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Resolves relative specifiers (`./x.js` → `./x.ts`, a folder → its index.ts); packages and node: builtins are not edges. */
function resolveSpec(fromAbs: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(fromAbs), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts'), base];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c));
}

/** The import graph of every non-test `.ts` file under `root/dir`. */
export function readImportGraph(root: string, dir = 'src'): ImportGraph {
  const rel = (abs: string) => relative(root, abs).split(sep).join('/');
  const absFiles = listTs(join(root, dir));
  const edges: ImportEdge[] = [];
  for (const abs of absFiles) {
    for (const { spec, typeOnly } of specifiersOf(abs, readFileSync(abs, 'utf8'))) {
      const target = resolveSpec(abs, spec);
      if (target) edges.push({ from: rel(abs), to: rel(target), typeOnly });
    }
  }
  return { files: absFiles.map(rel).sort(), edges };
}

/** Tarjan's algorithm: the strongly connected components with more than one file, or a file importing itself. */
export function findCycles(files: string[], edges: { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return cycles;
}
