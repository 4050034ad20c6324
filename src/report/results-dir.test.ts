// The results-directory module: one sort order (id, then attempt), streamed replay, bounded samples for charts.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { RecordWriter } from '../metrics/jsonl.js';
import { toRecord } from '../metrics/derive.js';
import { buildSummary } from '../metrics/summary.js';
import type { RawRequest, RequestRecord } from '../metrics/record.js';
import { NO_CONNECTION } from '../metrics/record.js';
import { readRecordsSorted, replaySummary, sampleRecords } from './results-dir.js';
import { readRunDir } from './html/run-report.js';

const rec = (id: number, attempt = 1, status: RawRequest['status'] = 'ok'): RequestRecord =>
  toRecord({
    ...NO_CONNECTION,
    id, attempt, warmup: false, class: undefined, status, http_status: status === 'ok' ? 200 : 429, error: status === 'ok' ? null : 'slow down', code: status === 'ok' ? null : 'E_HTTP_429',
    scheduled_at_ms: id, sent_at_ms: id + 0.5, headers_ms: 2, end_ms: 9 + (id % 5), streamed: true, event_times_ms: [3, 5 + (id % 3), 9],
    event_kinds: 'aaa', reasoning_chars: 0, answer_chars: 8, input_tokens: 8, output_tokens: 3, reasoning_tokens: 0, cached_tokens: null,
    token_source: 'usage', expected_input_tokens: 8, max_tokens: 3, finish_reason: 'stop', reconnected: false, usage_rejected: null, events_after_done: 0,
  });

/** A run directory holding `recs` in this file order, plus a run.json. */
function runDir(recs: RequestRecord[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'tokenflood-dir-'));
  const w = new RecordWriter(join(dir, 'requests.jsonl'));
  for (const r of recs) w.write(r);
  w.close();
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ tool: 'tokenflood', config: { concurrency: 2 } }));
  return dir;
}

// A retry finishes after later requests, and worker threads hand records back in any order: the file is not sorted.
const unsorted = () => [rec(2), rec(1, 2), rec(0), rec(1, 1, 'http_error'), rec(3, 3), rec(3, 1, 'http_error'), rec(3, 2, 'http_error')];
const order = (rs: RequestRecord[]) => rs.map((r) => `${r.id}.${r.attempt}`);

describe('results directory', () => {
  it('every reader returns records sorted by id, then attempt', () => {
    const dir = runDir(unsorted());
    const want = ['0.1', '1.1', '1.2', '2.1', '3.1', '3.2', '3.3'];
    expect(order(readRecordsSorted(dir).records)).toEqual(want);
    expect(order(readRunDir(dir).records)).toEqual(want);
    expect(order(sampleRecords(dir, 100).records)).toEqual(want);
  });

  it('replays requests.jsonl through the aggregator: the summary of the records, with run.json as metadata', () => {
    const recs = unsorted();
    const { summary, warnings } = replaySummary(runDir(recs));
    expect(warnings).toEqual([]);
    expect(summary).toEqual(buildSummary(recs, { tool: 'tokenflood', config: { concurrency: 2 } }, 2));
    expect(summary.requests.retries).toBe(3);
  });

  it('samples at most max records, evenly spread over the file, and all of them below max', () => {
    const recs = Array.from({ length: 1000 }, (_, i) => rec(i));
    const dir = runDir(recs);
    const all = sampleRecords(dir, 1000);
    expect(all.records.length).toBe(1000);
    for (const max of [10, 99, 300]) {
      const s = sampleRecords(dir, max);
      expect(s.total).toBe(1000);
      expect(s.records.length).toBeLessThanOrEqual(max);
      expect(s.records.length).toBeGreaterThanOrEqual(max / 2);
      const ids = s.records.map((r) => r.id);
      // Even spread: one fixed stride between kept records.
      const steps = new Set(ids.slice(1).map((x, i) => x - ids[i]));
      expect(steps.size).toBe(1);
      expect(ids[0]).toBe(0);
      expect(ids[ids.length - 1]).toBeGreaterThanOrEqual(1000 - 2 * [...steps][0]);
    }
  });

  it('the HTML report reads a bounded sample for its charts but keeps the summary of every record', () => {
    const recs = Array.from({ length: 400 }, (_, i) => rec(i, 1, i % 10 === 0 ? 'http_error' : 'ok'));
    const d = readRunDir(runDir(recs), 50);
    expect(d.records.length).toBeLessThanOrEqual(50);
    expect(d.totalRecords).toBe(400);
    expect(d.summary.requests.total).toBe(400);
    expect(d.summary.requests.failed).toBe(40);
    expect([...d.allRecords!()].length).toBe(400);
    expect(d.warnings.some((w) => w.includes('of 400 records'))).toBe(true);
  });
});
