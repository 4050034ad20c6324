// writeFileAtomic: the target is either the old file or the complete new one; a failure names the file and leaves no temp file.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { writeFileAtomic } from './atomic-write.js';

const tmpDir = () => mkdtempSync(join(tmpdir(), 'tokenflood-write-'));

describe('writeFileAtomic', () => {
  it('writes the whole file and leaves nothing else in the directory', () => {
    const dir = tmpDir();
    const data = 'x'.repeat(300_000);
    writeFileAtomic(join(dir, 'summary.json'), data);
    expect(readFileSync(join(dir, 'summary.json'), 'utf8')).toBe(data);
    expect(readdirSync(dir)).toEqual(['summary.json']);
  });

  it('a write failing part-way keeps the previous file intact and removes the temp file', () => {
    const dir = tmpDir();
    const path = join(dir, 'report.html');
    writeFileSync(path, 'old report');
    let calls = 0;
    const failing = (fd: number, buf: Uint8Array, off: number, len: number) => {
      if (++calls === 1) return writeSync(fd, buf, off, Math.min(len, 100));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    expect(() => writeFileAtomic(path, 'n'.repeat(10_000), failing)).toThrow(`cannot write ${path}: ENOSPC (no space left on device)`);
    expect(readFileSync(path, 'utf8')).toBe('old report');
    expect(readdirSync(dir)).toEqual(['report.html']);
  });

  it('a directory that cannot take files fails with the OS reason, naming the file', () => {
    expect(() => writeFileAtomic('/proc/self/x.json', '{}')).toThrow(/^cannot write \/proc\/self\/x\.json: E[A-Z]+/);
  });
});
