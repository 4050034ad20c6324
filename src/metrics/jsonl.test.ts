// RecordWriter under write failures: complete lines are kept, a partial last line is cut back, the writer stops.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { RecordWriter } from './jsonl.js';
import { toRecord } from './derive.js';
import type { RawRequest } from './record.js';

const tmpDir = () => mkdtempSync(join(tmpdir(), 'tokenflood-write-'));

const raw = (id: number): RawRequest => ({
  id, attempt: 1, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, scheduled_at_ms: id, sent_at_ms: id + 0.5,
  headers_ms: id + 2, end_ms: id + 9, streamed: true, event_times_ms: [id + 3, id + 9], event_kinds: 'aa', reasoning_chars: 0, answer_chars: 8,
  input_tokens: 8, output_tokens: 2, reasoning_tokens: 0, cached_tokens: null, token_source: 'usage', expected_input_tokens: 8, max_tokens: 2, finish_reason: 'stop',
  reconnected: false, code: null, usage_rejected: null, events_after_done: 0,
});

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('RecordWriter', () => {
  it('a write that runs out of space part-way leaves only complete lines and stops the writer', () => {
    const path = join(tmpDir(), 'requests.jsonl');
    let calls = 0;
    // The 4th record gets half its bytes on disk, then the disk is full.
    const w = new RecordWriter(path, (fd, buf, off, len) => {
      calls++;
      if (calls < 4) return writeSync(fd, buf, off, len);
      if (calls === 4) return writeSync(fd, buf, off, Math.floor(len / 2));
      throw enospc();
    });
    const results = [0, 1, 2, 3, 4].map((i) => w.write(toRecord(raw(i))));
    w.close();
    expect(results).toEqual([true, true, true, false, false]);
    expect(calls).toBe(5); // nothing is attempted after the failure
    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([0, 1, 2]);
    expect(w.written).toBe(3);
    expect(w.failure?.code).toBe('E_WRITE');
    expect(w.failure?.message).toBe(`cannot write ${path}: ENOSPC (no space left on device); 3 complete records kept`);
  });

  it('/dev/full: the real ENOSPC comes back as a failure naming the file, not a throw', () => {
    const w = new RecordWriter('/dev/full');
    expect(w.write(toRecord(raw(1)))).toBe(false);
    w.close();
    expect(w.failure?.message).toMatch(/^cannot write \/dev\/full: ENOSPC/);
  });
});
