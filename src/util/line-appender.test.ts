// LineAppender: lines are written in few background batches, in order, every one kept on close; a failed batch keeps only complete lines.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { LineAppender, type WriteAtFn } from './line-appender.js';

const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'tokenflood-append-')), 'lines.jsonl');
const line = (i: number) => JSON.stringify({ id: i, pad: 'x'.repeat(i % 97) }) + '\n';
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
const tick = () => new Promise((r) => setImmediate(r));

/** A real pwrite that logs each call; `capacity` bytes fit on the "disk" (a short write, then ENOSPC). */
function disk(capacity = Infinity) {
  const calls: { pos: number; len: number }[] = [];
  let used = 0;
  const write: WriteAtFn = (fd, buf, off, len, pos) => {
    calls.push({ pos, len });
    const room = Math.min(len, capacity - used);
    if (room <= 0) throw enospc();
    const n = writeSync(fd, buf, off, room, pos);
    used += n;
    return n;
  };
  return { calls, write };
}

/** Every call starts where the last one's bytes ended: batches go to disk in order, never overlapping. */
const contiguous = (calls: { pos: number; len: number }[]) => calls.every((c, i) => i === 0 || c.pos === calls[i - 1].pos + calls[i - 1].len);

describe('LineAppender', () => {
  it('many lines, taken across many turns of the event loop, go out in few contiguous writes with the exact bytes', async () => {
    const path = tmpFile();
    const d = disk();
    const a = new LineAppender(path, { write: d.write, flushBytes: 16 * 1024, lowSpaceBytes: 0 });
    const lines = Array.from({ length: 3000 }, (_, i) => line(i));
    for (let i = 0; i < lines.length; i++) {
      expect(a.append(lines[i])).toBe(true);
      if (i % 25 === 24) await tick();
    }
    await a.flush();
    const bytes = lines.join('').length;
    expect(a.written).toBe(3000);
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
    // One write per ~16 KiB batch (a batch can grow while the previous write is out), not one per line.
    expect(d.calls.length).toBeGreaterThanOrEqual(1);
    expect(d.calls.length).toBeLessThanOrEqual(Math.ceil(bytes / (16 * 1024)) + 1);
    expect(contiguous(d.calls)).toBe(true);
    a.close();
  });

  it('nothing is written on the calling thread; a lone line reaches the file after the flush interval', async () => {
    const path = tmpFile();
    const d = disk();
    const a = new LineAppender(path, { write: d.write, flushMs: 50, lowSpaceBytes: 0 });
    const t0 = performance.now();
    a.append(line(1));
    expect(d.calls).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('');
    while (a.written === 0 && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
    expect(readFileSync(path, 'utf8')).toBe(line(1));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45); // timers may fire ~1 ms early
    expect(d.calls).toHaveLength(1);
    a.close();
  });

  it('close() writes what is buffered and what a background write still has out, once each, in order', () => {
    const path = tmpFile();
    writeFileSync(path, line(0)); // an existing file is appended to
    const a = new LineAppender(path, { flushBytes: 4096, lowSpaceBytes: 0 });
    const lines = Array.from({ length: 2000 }, (_, i) => line(i + 1));
    for (const l of lines) a.append(l); // the first 4 KiB went to a background fs.write that has not come back
    a.close();
    expect(a.written).toBe(2000);
    expect(readFileSync(path, 'utf8')).toBe(line(0) + lines.join(''));
  });

  it('a caller that never yields: past 16 batches waiting they are written on its thread, so memory stays bounded', () => {
    const path = tmpFile();
    const d = disk();
    const a = new LineAppender(path, { write: d.write, flushBytes: 1024, lowSpaceBytes: 0 });
    const lines = Array.from({ length: 3000 }, (_, i) => line(i));
    let most = 0;
    for (const l of lines) {
      a.append(l);
      most = Math.max(most, a.accepted - a.written);
    }
    // In lines: 16 KiB waiting plus the 1 KiB batch out, at most ~130 bytes a line, at least ~20.
    expect(most).toBeLessThanOrEqual(Math.ceil((17 * 1024) / 20) + 1);
    expect(a.written).toBeGreaterThan(0);
    a.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
  });

  it('a batch that runs out of space part-way keeps its complete lines; written matches the file; nothing more is taken or tried', async () => {
    const path = tmpFile();
    const lines = Array.from({ length: 200 }, (_, i) => line(i));
    // Room for 134.5 lines: the disk fills in the middle of the background batch of lines 130..139.
    const capacity = lines.slice(0, 134).join('').length + Math.floor(lines[134].length / 2);
    const d = disk(capacity);
    const a = new LineAppender(path, { write: d.write, flushBytes: 2048, lowSpaceBytes: 0, unit: 'records' });
    let i = 0;
    while (i < lines.length && a.append(lines[i])) if (++i % 10 === 0) await a.flush();
    await a.flush();
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(lines.slice(0, 134).join(''));
    expect(a.written).toBe(134);
    expect(a.accepted).toBe(140); // the lost rest of the failed batch had been taken
    expect(a.failure?.code).toBe('E_WRITE');
    expect(a.failure?.message).toBe(`cannot write ${path}: ENOSPC (no space left on device); 134 complete records kept`);
    const tries = d.calls.length;
    expect(a.append(line(999))).toBe(false);
    a.close();
    expect(d.calls.length).toBe(tries);
  });

  it('a batch whose first write fails outright keeps none of its lines', async () => {
    const path = tmpFile();
    const lines = Array.from({ length: 30 }, (_, i) => line(i));
    const d = disk(lines.slice(0, 10).join('').length); // exactly the first batch fits
    const a = new LineAppender(path, { write: d.write, lowSpaceBytes: 0 });
    for (let i = 0; i < 20; i++) {
      a.append(lines[i]);
      if (i === 9) await a.flush();
    }
    await a.flush();
    expect(readFileSync(path, 'utf8')).toBe(lines.slice(0, 10).join(''));
    expect([a.written, a.accepted]).toEqual([10, 20]);
    a.close();
  });

  it('the disk fills during close(): only complete lines are kept and written says how many', () => {
    const path = tmpFile();
    const lines = Array.from({ length: 50 }, (_, i) => line(i));
    const d = disk(lines.slice(0, 31).join('').length + 3);
    const a = new LineAppender(path, { write: d.write, lowSpaceBytes: 0, unit: 'records' });
    for (const l of lines) a.append(l);
    a.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.slice(0, 31).join(''));
    expect(a.written).toBe(31);
    expect(a.failure?.message).toMatch(/; 31 complete records kept$/);
  });

  it('with little free space each line is written as it is taken, and the one that does not fit is refused', () => {
    const path = tmpFile();
    const lines = Array.from({ length: 5 }, (_, i) => line(i));
    const d = disk(lines.slice(0, 3).join('').length + 10);
    const a = new LineAppender(path, { write: d.write, lowSpaceBytes: Infinity, unit: 'records' });
    const taken = lines.map((l) => a.append(l));
    expect(taken).toEqual([true, true, true, false, false]);
    expect(d.calls.length).toBe(5); // 3 lines, the short write of the 4th, its ENOSPC; nothing after
    a.close();
    expect(readFileSync(path, 'utf8')).toBe(lines.slice(0, 3).join(''));
    expect([a.written, a.accepted]).toEqual([3, 3]);
    expect(a.failure?.message).toMatch(/; 3 complete records kept$/);
  });

  it('appends to what the file holds, or with `truncate` starts it empty (a timeline of a directory reused with --overwrite)', () => {
    const f = tmpFile();
    writeFileSync(f, 'old\n');
    const a = new LineAppender(f);
    a.append('kept\n');
    a.close();
    expect(readFileSync(f, 'utf8')).toBe('old\nkept\n');
    const b = new LineAppender(f, { truncate: true });
    b.append('new\n');
    b.close();
    expect(readFileSync(f, 'utf8')).toBe('new\n');
  });
});
