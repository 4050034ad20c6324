// Build step after tsc: bundles the CLI and its worker/child entries from dist/ into dist/bin/, the files the
// `tokenflood` command runs. One graph of ~50 chunks instead of ~420 of our files and ~300 of the dependencies' cuts
// start-up plus one request from about 1.0 to 0.7 CPU-s and from 100 to 86 MB
// (docs/performance.md#issue-30-start-up-and-memory): Node's ESM loader resolves, reads, compiles and links each file
// on its own. dist/ keeps the unbundled modules for the library entry (dist/index.js).
// Every chunk lands flat in dist/bin/ beside the entries, so a module's `new URL('./worker.js', import.meta.url)` finds
// the bundled worker; data files are found from the package root (src/package-root.ts), not by depth. Dependencies
// loaded with createRequire at run time stay in node_modules; the bundled ones' licenses are collected into
// dist/bin/THIRD-PARTY-LICENSES.txt (they are dependencies, so installed with their own files as well).
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Entry name → compiled file; the names are what the modules look for beside themselves. */
const ENTRIES = {
  tokenflood: 'cli/main.js',
  worker: 'backends/worker.js',
  'scrape-worker': 'telemetry/scrape-worker.js',
  'prompt-worker': 'dataset/trace/replay/prompt-worker.js',
  'media-worker': 'dataset/media-worker.js',
  'count-worker': 'dataset/count-worker.js',
  child: 'sim/child.js',
};

/**
 * Dependencies left as imports of node_modules: LGPL code (lamejs, the MP3 encoder) stays a separate module its user
 * can replace, as the LGPL asks of a combined work.
 */
const KEEP_EXTERNAL = ['@breezystack/lamejs'];

const out = join(dist, 'bin');
rmSync(out, { recursive: true, force: true });
const result = await build({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([k, v]) => [k, join(dist, v)])),
  platform: 'node',
  external: (id) => id.startsWith('node:') || KEEP_EXTERNAL.some((d) => id === d || id.startsWith(`${d}/`)),
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});

/** The package folder of a module id under node_modules (scoped or not), or null for our own files. */
function packageDir(id) {
  const i = id.lastIndexOf(`${sep}node_modules${sep}`);
  if (i < 0) return null;
  const rest = id.slice(i + 14).split(sep);
  return id.slice(0, i + 14) + (rest[0].startsWith('@') ? join(rest[0], rest[1]) : rest[0]);
}
const outputs = Array.isArray(result) ? result.flatMap((r) => r.output) : result.output;
const dirs = new Set(outputs.flatMap((o) => (o.type === 'chunk' ? o.moduleIds : [])).map(packageDir).filter(Boolean));
const notices = [...dirs].sort().map((d) => {
  const pkg = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'));
  const files = readdirSync(d);
  const lic = files.find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const notice = files.find((f) => /^notice(\.|$)/i.test(f));
  const text = (lic ? readFileSync(join(d, lic), 'utf8').trim() : `(no license file in the package; package.json says ${pkg.license ?? 'nothing'})`) +
    (notice ? `\n\n${readFileSync(join(d, notice), 'utf8').trim()}` : '');
  return `${pkg.name}@${pkg.version} (${pkg.license ?? 'see text'})\n${'-'.repeat(60)}\n${text}\n`;
});
if (!existsSync(out)) throw new Error('bundle: nothing written');
writeFileSync(join(out, 'THIRD-PARTY-LICENSES.txt'), `Code from these packages is bundled into the files of this folder.\n\n${notices.join('\n')}`);
