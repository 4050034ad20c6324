// The npm package installs and runs: the tarball holds the build, the licenses and the vendored chart bundle, and its
// code needs no dev dependency. A full install from a fresh clone (network to the registry) runs with TOKENFLOOD_PACK_FULL=1.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isBuiltin } from 'node:module';
import { tmpDir } from './helpers.js';

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** What `npm pack` puts in the tarball, without running scripts (the suite has already built dist/). */
function packList(cwd: string): string[] {
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** Bare module specifiers imported by a built file (static, dynamic, createRequire), reduced to the package name. */
function importedPackages(js: string): string[] {
  // Comments are not imports (a bundled package's doc comment may name another package).
  js = js.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const name = String.raw`((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w./-]*)?)`;
  const re = new RegExp(String.raw`(?:\bfrom\s*|\bimport\s*\(\s*|\brequire(?:\.resolve)?\s*\(\s*|\bimport\s+)['"]` + name + `['"]`, 'g');
  const specs = [...js.matchAll(re)].map((m) => m[1]);
  // Bundled CommonJS keeps Node's builtins unprefixed (require("stream")).
  return specs.filter((s) => !s.startsWith('node:') && !isBuiltin(s)).map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]));
}

describe('npm pack', () => {
  let files: string[] = [];
  beforeAll(() => {
    files = packList(root);
  }, 60_000);

  it('has prepack and prepare scripts that build dist/ (a fresh clone has none: dist/ is not in git)', () => {
    expect(pkg.scripts.prepack).toMatch(/\bclean\b.*build-if-stale/);
    expect(pkg.scripts.build).toMatch(/vendor-assets/);
    // npm runs only `prepare` for a git dependency (npm install -g <git URL>): it must build. It builds when stale only,
    // and start/test run the same check, so a fresh clone's npm ci && npm start builds once.
    expect(pkg.scripts.prepare).toMatch(/build-if-stale/);
    expect(pkg.scripts.start).toMatch(/^node scripts\/build-if-stale\.mjs && /);
    expect(pkg.scripts.test).toMatch(/^node scripts\/build-if-stale\.mjs && /);
    const tracked = execFileSync('git', ['ls-files', 'dist'], { cwd: root, encoding: 'utf8' });
    expect(tracked).toBe('');
  });

  it('ships the bin, the licenses, the data and the vendored ECharts bundle, and no sources or tests', () => {
    for (const f of Object.values(pkg.bin)) expect(files).toContain(f.replace(/^\.\//, ''));
    expect(readFileSync(join(root, pkg.bin.tokenflood), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    expect(files).toContain('LICENSE');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/);
    for (const f of ['dist/vendor/echarts/echarts.min.js', 'dist/vendor/echarts/LICENSE', 'dist/vendor/echarts/NOTICE', 'dist/vendor/echarts/LICENSE-zrender', 'dist/vendor/echarts/LICENSE-d3', 'data/bpe/cl100k_base.bin.gz', 'README.md'])
      expect(files).toContain(f);
    // Every shipped eval set has its upstream license beside it; any data file with its own license ships that too.
    const sets = files.filter((f) => /^data\/evalsets\/.+\.jsonl$/.test(f));
    expect(sets.length).toBeGreaterThan(0);
    for (const s of sets) expect(files).toContain(s.replace(/\.jsonl$/, '.LICENSE'));
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/') || /\.test\.js$/.test(f))).toEqual([]);
  });

  it('its code imports only production dependencies (echarts, gpt-tokenizer and kubernetes-models are build- or test-time only)', () => {
    expect(pkg.dependencies.echarts).toBeUndefined();
    expect(pkg.dependencies['gpt-tokenizer']).toBeUndefined();
    expect(pkg.dependencies['kubernetes-models']).toBeUndefined();
    const allowed = new Set(Object.keys(pkg.dependencies));
    const bad: string[] = [];
    for (const f of walk(join(root, 'dist')).filter((p) => p.endsWith('.js') && !p.includes(`${join('dist', 'vendor')}`)))
      for (const p of importedPackages(readFileSync(f, 'utf8'))) if (!allowed.has(p)) bad.push(`${relative(root, f)}: ${p}`);
    expect(bad).toEqual([]);
  });
});

describe('the container image', () => {
  it('builds through npm run build (which vendors ECharts) before pruning dev dependencies, with the script in its context', () => {
    const docker = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(docker).toMatch(/RUN npm run build && npm prune --omit=dev/);
    expect(docker).toContain('COPY scripts ./scripts');
    expect(docker).toContain('COPY LICENSE ./LICENSE');
    const ignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toContain('!scripts/vendor-assets.mjs');
    expect(ignore.indexOf('!scripts/vendor-assets.mjs')).toBeGreaterThan(ignore.indexOf('scripts'));
    expect(ignore).not.toContain('LICENSE');
  });
});

describe('the packed tarball runs with production dependencies only', () => {
  const dir = tmpDir('tokenflood-pack-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('tokenflood --version, a tiny simulate (with its report.html) and k8s manifest work from the unpacked tarball', () => {
    execFileSync(npm, ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root, stdio: 'ignore' });
    const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    execFileSync('tar', ['-xzf', tgz], { cwd: dir });
    const pkgDir = join(dir, 'package');
    // node_modules of the production closure only (package-lock entries not marked dev), linked from this checkout.
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    for (const [path, meta] of Object.entries(lock.packages)) {
      if (!path || meta.dev || path.lastIndexOf('node_modules/') !== 0) continue;
      const target = join(pkgDir, path);
      mkdirSync(dirname(target), { recursive: true });
      if (existsSync(join(root, path))) symlinkSync(join(root, path), target, 'dir');
    }
    expect(existsSync(join(pkgDir, 'node_modules', 'echarts'))).toBe(false);
    const bin = join(pkgDir, pkg.bin.tokenflood);
    const v = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 30_000 });
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const out = join(dir, 'sim');
    const s = spawnSync(process.execPath, [bin, 'simulate', '--requests', '8', '--concurrency', '2', '--out', out], { encoding: 'utf8', timeout: 60_000 });
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).requests.ok).toBe(8);
    // The report inlines the vendored bundle (echarts is not installed here).
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('echarts');
    // k8s manifest builds plain objects: kubernetes-models (22 MB) is a dev dependency, used only by the schema tests.
    const k = spawnSync(process.execPath, [bin, 'k8s', 'manifest', '--shards', '2', '--image', 'tokenflood:test', '--', '--base-url', 'http://127.0.0.1:9/v1', '--concurrency', '4', '--requests', '8'], { encoding: 'utf8', timeout: 30_000 });
    expect(k.status, k.stderr).toBe(0);
    expect(k.stdout).toMatch(/^apiVersion: batch\/v1\nkind: Job$/m);
  }, 90_000);
});

// By hand (network to the npm registry, about a minute): a fresh clone of HEAD packs through prepack and installs.
describe.runIf(process.env.TOKENFLOOD_PACK_FULL === '1')('a fresh clone of HEAD packs and installs (TOKENFLOOD_PACK_FULL=1)', () => {
  it('npm pack runs prepack, and the tarball installs into a prefix and runs', () => {
    const dir = tmpDir('tokenflood-clone-');
    try {
      const clone = join(dir, 'clone');
      execFileSync('git', ['clone', '--quiet', root, clone]);
      // The dev dependencies prepack needs (tsc, echarts), from this checkout instead of a second npm ci.
      symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
      execFileSync(npm, ['pack', '--pack-destination', dir], { cwd: clone, stdio: 'ignore' });
      const tgz = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
      const prefix = join(dir, 'prefix');
      execFileSync(npm, ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tgz], { stdio: 'ignore' });
      const bin = join(prefix, 'bin', 'tokenflood');
      expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+/);
      const out = join(dir, 'sim');
      execFileSync(bin, ['simulate', '--requests', '8', '--concurrency', '2', '--out', out], { stdio: 'ignore' });
      expect(existsSync(join(out, 'report.html'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
