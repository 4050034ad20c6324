// The bundled CLI runs however node is pointed at it: through a symlink (pnpm's store, a user's link to a checkout),
// and from a folder whose path has a space; imported rather than run, it does nothing.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const version = (cli: string) => execFileSync(process.execPath, [cli, '--version'], { encoding: 'utf8', timeout: 30_000 }).trim();

describe('the bundled CLI entry', () => {
  it('prints its version run directly, through a symlinked package folder, and from a path with a space', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf entry '));
    symlinkSync(ROOT, join(dir, 'pkg'));
    expect(version(join(ROOT, 'dist', 'bin', 'tokenflood.js'))).toBe(VERSION);
    expect(version(join(dir, 'pkg', 'dist', 'bin', 'tokenflood.js'))).toBe(VERSION);
  });

  it('does nothing when imported (no output, no pending exit code)', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(join(ROOT, 'dist', 'bin', 'tokenflood.js'))}); console.log('code', process.exitCode ?? 0)`], { encoding: 'utf8', timeout: 30_000 });
    expect(out.trim()).toBe('code 0');
  });
});
