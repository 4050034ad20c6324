// The installed package's root folder (where package.json, data/ and dist/ are), found from this module's own file by
// walking up, so a file read from data/ resolves the same from src/ (tests), dist/ (the library) and dist/bin/ (the
// bundled CLI, scripts/bundle.mjs), where a module's depth below the root differs.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

let root: string | undefined;

/** The nearest folder above this module whose package.json is tokenflood's. */
export function packageRoot(): string {
  if (root !== undefined) return root;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let d = start; ; d = dirname(d)) {
    const f = join(d, 'package.json');
    if (existsSync(f) && (JSON.parse(readFileSync(f, 'utf8')) as { name?: unknown }).name === 'tokenflood') return (root = d);
    if (dirname(d) === d) throw new Error(`tokenflood's package.json not found above ${start}`);
  }
}

/** A path below the package root: packagePath('data', 'engines'). */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}

/**
 * A compiled entry file (a worker thread's or a child process's) beside the calling module: `./worker.js` next to
 * `from` (import.meta.url) in dist/ and in the bundle's dist/bin/, else the build's `dist/<distRel>` when the caller
 * runs from TypeScript sources (tests). Undefined without a build. The names are scripts/bundle.mjs's ENTRIES.
 */
export function entryFile(from: string, sibling: string, distRel: string): URL | undefined {
  const here = new URL(sibling, from);
  if (existsSync(fileURLToPath(here))) return here;
  const built = packagePath('dist', distRel);
  return existsSync(built) ? pathToFileURL(built) : undefined;
}
