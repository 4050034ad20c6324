// RecordWriter: records buffered and written in batches, byte-identical; under write failures only complete lines are kept and the writer stops.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { readRecords, recordLine, RecordWriter } from './jsonl.js';
import { FLUSH_BYTES } from '../util/line-appender.js';
import { toRecord } from './derive.js';
import type { RawRequest } from './record.js';
import { NO_CONNECTION } from './record.js';

const tmpDir = () => mkdtempSync(join(tmpdir(), 'tokenflood-write-'));

const raw = (id: number): RawRequest => ({
  ...NO_CONNECTION,
  id, attempt: 1, warmup: false, class: undefined, status: 'ok', http_status: 200, error: null, scheduled_at_ms: id, sent_at_ms: id + 0.5,
  headers_ms: id + 2, end_ms: id + 9, streamed: true, event_times_ms: [id + 3, id + 9], event_kinds: 'aa', reasoning_chars: 0, answer_chars: 8,
  input_tokens: 8, output_tokens: 2, reasoning_tokens: 0, cached_tokens: null, token_source: 'usage', expected_input_tokens: 8, max_tokens: 2, finish_reason: 'stop',
  reconnected: false, code: null, usage_rejected: null, events_after_done: 0,
});

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

describe('RecordWriter', () => {
  it('buffers: 2,000 records go out in a few write calls, the file byte-identical to one line per record', async () => {
    const path = join(tmpDir(), 'requests.jsonl');
    let calls = 0;
    const w = new RecordWriter(path, (fd, buf, off, len, pos) => {
      calls++;
      return writeSync(fd, buf, off, len, pos);
    }, { lowSpaceBytes: 0 });
    const recs = Array.from({ length: 2000 }, (_, i) => toRecord(raw(i)));
    for (let i = 0; i < recs.length; i++) {
      expect(w.write(recs[i])).toBe(true);
      if (i % 20 === 19) await new Promise((r) => setImmediate(r)); // requests finish across many turns of the loop
    }
    w.close();
    const expected = recs.map(recordLine).join('');
    expect(readFileSync(path, 'utf8')).toBe(expected);
    expect(w.written).toBe(2000);
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(Math.ceil(Buffer.byteLength(expected) / FLUSH_BYTES) + 2);
  });

  it('a disk that fills in the middle of a batch: only complete lines are kept, `written` counts them, later writes are refused', async () => {
    const path = join(tmpDir(), 'requests.jsonl');
    const lines = Array.from({ length: 40 }, (_, i) => recordLine(toRecord(raw(i))));
    let room = lines.slice(0, 23).join('').length + 100; // 23 records and part of the 24th fit
    let calls = 0;
    const w = new RecordWriter(path, (fd, buf, off, len, pos) => {
      calls++;
      const n = Math.min(len, room);
      if (n <= 0) throw enospc();
      room -= n;
      return writeSync(fd, buf, off, n, pos);
    }, { lowSpaceBytes: 0, flushBytes: 4096 });
    let taken = 0;
    while (taken < lines.length && w.write(toRecord(raw(taken)))) if (++taken % 5 === 0) await w.flush();
    w.close();
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(lines.slice(0, 23).join(''));
    expect(w.written).toBe(23);
    expect(w.accepted).toBe(25);
    expect(w.failure?.code).toBe('E_WRITE');
    expect(w.failure?.message).toBe(`cannot write ${path}: ENOSPC (no space left on device); 23 complete records kept`);
    const tries = calls;
    expect(w.write(toRecord(raw(99)))).toBe(false);
    expect(calls).toBe(tries); // nothing is attempted after the failure
  });

  it('with little free space each record is written as it is taken: the one that runs out of space is refused at once', () => {
    const path = join(tmpDir(), 'requests.jsonl');
    let calls = 0;
    // The 4th record gets half its bytes on disk, then the disk is full.
    const w = new RecordWriter(path, (fd, buf, off, len, pos) => {
      calls++;
      if (calls < 4) return writeSync(fd, buf, off, len, pos);
      if (calls === 4) return writeSync(fd, buf, off, Math.floor(len / 2), pos);
      throw enospc();
    }, { lowSpaceBytes: Infinity });
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

  it('/dev/full: the real ENOSPC comes back as a failure naming the file, not a throw', async () => {
    const w = new RecordWriter('/dev/full');
    w.write(toRecord(raw(1)));
    await w.flush();
    expect(w.write(toRecord(raw(2)))).toBe(false);
    w.close();
    expect(w.failure?.message).toMatch(/^cannot write \/dev\/full: ENOSPC/);
    expect(w.written).toBe(0);
  });
});

describe('readRecords', () => {
  it('keeps the code of current records and derives it for lines written before `code` existed', () => {
    const path = join(tmpDir(), 'requests.jsonl');
    const w = new RecordWriter(path);
    w.write(toRecord({ ...raw(0), status: 'http_error', http_status: 503, error: 'HTTP 503: busy', code: 'E_HTTP_503' }));
    w.write(toRecord({ ...raw(1), status: 'timeout', http_status: 200, error: 'stream stalled: nothing received for 1 s (--idle-timeout)', code: 'E_STREAM_STALLED' }));
    w.close();
    const old = (o: Record<string, unknown>) => JSON.stringify({ id: 9, status: 'ok', http_status: 200, error: null, sent_at_ms: 0, end_ms: 5, event_times_ms: [5], event_kinds: 'a', ...o }) + '\n';
    writeFileSync(path, readFileSync(path, 'utf8') + old({ id: 2, status: 'http_error', http_status: 429, error: 'HTTP 429: slow down' }) + old({ id: 3 }) + old({ id: 4, status: 'network_error', error: 'ECONNREFUSED: connection refused by 127.0.0.1:1 (is the server running?)' }));
    const { records, warnings } = readRecords(path);
    expect(warnings).toEqual([]);
    expect(records.map((r) => r.code)).toEqual(['E_HTTP_503', 'E_STREAM_STALLED', 'E_HTTP_429', null, 'ECONNREFUSED']);
  });

  it('round-trips the connection phases, and reads them as null from lines written before they existed', () => {
    const path = join(tmpDir(), 'requests.jsonl');
    const w = new RecordWriter(path);
    w.write(toRecord({ ...raw(0), connection_reused: false, blocked_ms: 0.01, connecting_ms: 1.5, tls_ms: null, sending_ms: 0.02 }));
    w.close();
    writeFileSync(path, readFileSync(path, 'utf8') + JSON.stringify({ id: 1, status: 'ok', http_status: 200, error: null, sent_at_ms: 0, headers_ms: 2, end_ms: 5, event_times_ms: [5], event_kinds: 'a' }) + '\n');
    const [now, old] = readRecords(path).records;
    expect(now).toMatchObject({ connection_reused: false, blocked_ms: 0.01, connecting_ms: 1.5, tls_ms: null, sending_ms: 0.02, waiting_ms: 2, receiving_ms: 7 });
    // An old line: the send was not measured, so there is no waiting phase; receiving is headers → end.
    expect(old).toMatchObject({ connection_reused: null, blocked_ms: null, connecting_ms: null, tls_ms: null, sending_ms: null, waiting_ms: null, receiving_ms: 3 });
  });
});

describe('phase', () => {
  it('is written on every line and read back; lines without it (older files) or with an unknown value read as steady', () => {
    const path = join(tmpDir(), 'requests.jsonl');
    const w = new RecordWriter(path);
    w.write(toRecord({ ...raw(0), phase: 'ramp-up' }));
    w.write(toRecord({ ...raw(1), phase: 'ramp-down' }));
    w.write(toRecord(raw(2)));
    w.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.phase)).toEqual(['ramp-up', 'ramp-down', 'steady']);
    const old = (o: Record<string, unknown>) => JSON.stringify({ ...lines[0], ...o }) + '\n';
    const { phase: _, ...withoutPhase } = lines[0];
    writeFileSync(path, readFileSync(path, 'utf8') + JSON.stringify({ ...withoutPhase, id: 3 }) + '\n' + old({ id: 4, phase: 'warmup' }));
    expect(readRecords(path).records.map((r) => r.phase)).toEqual(['ramp-up', 'ramp-down', 'steady', 'steady', 'steady']);
  });
});

describe('media fields (issue 28)', () => {
  it('are written only when set and read back as written (null image/audio tokens: the server gave none)', () => {
    const dir = tmpDir();
    const path = join(dir, 'requests.jsonl');
    const plain = toRecord(raw(1));
    const media = toRecord({ ...raw(2), images: 2, video_frames: 8, audio_seconds: 1.5, image_pixels: 2 * 1024 * 1024, media_bytes: 123_456, media_encode_ms: 4.25, image_tokens: 2592, audio_tokens: null });
    expect(recordLine(plain)).not.toMatch(/"images"|media_bytes|image_tokens/);
    writeFileSync(path, recordLine(plain) + recordLine(media));
    const back = readRecords(path).records;
    expect(back[1]).toMatchObject({ images: 2, video_frames: 8, audio_seconds: 1.5, image_pixels: 2 * 1024 * 1024, media_bytes: 123_456, media_encode_ms: 4.25, image_tokens: 2592, audio_tokens: null });
    expect(back[0].images).toBeUndefined();
  });
});
