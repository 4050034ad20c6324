// summary.json by_priority: each priority's block is the block of its records alone, lowest first, shown with two or
// more priorities; the record's `priority` survives requests.jsonl; the table reaches the terminal and stats.csv.
import { describe, expect, it } from 'vitest';
import { SummaryAggregator } from './aggregator.js';
import { toRecord } from './derive.js';
import { normalizeRaw, recordFromJson, recordLine } from './jsonl.js';
import { createRng } from '../util/rng.js';
import { NO_CONNECTION, type RawRequest, type RequestRecord } from './record.js';
import { renderSummary } from '../report/terminal.js';
import { statsCsv } from '../report/stats-csv.js';
import { labelledRows, priorityColumns, priorityEntries } from '../report/breakdown-columns.js';

/** Records whose TTFT grows with the priority (urgent ones are fast), a few failures among them. */
function records(n: number, priorityOf: (id: number) => number | undefined): RequestRecord[] {
  const rng = createRng(3);
  return Array.from({ length: n }, (_, id) => {
    const p = priorityOf(id);
    const ok = id % 9 !== 4;
    const first = 20 + (p ?? 0) * 30 + rng.next() * 10;
    const events = ok ? Array.from({ length: 6 }, (_, k) => first + k * (2 + rng.next())) : [];
    const raw: RawRequest = {
      ...NO_CONNECTION,
      id, attempt: 1, reconnected: false, warmup: false, class: undefined, status: ok ? 'ok' : 'http_error', http_status: ok ? 200 : 400,
      error: ok ? null : 'HTTP 400: refused', code: ok ? null : 'E_HTTP_400', scheduled_at_ms: id * 5, sent_at_ms: id * 5, headers_ms: 2,
      end_ms: ok ? events[5] + 1 : 3, streamed: true, event_times_ms: events, event_kinds: 'a'.repeat(events.length), reasoning_chars: 0,
      answer_chars: 24, input_tokens: ok ? 50 : null, output_tokens: ok ? 6 : null, reasoning_tokens: 0, cached_tokens: null,
      token_source: ok ? 'usage' : null, expected_input_tokens: 50, max_tokens: 6, finish_reason: ok ? 'length' : null, usage_rejected: null, events_after_done: 0,
      ...(p !== undefined ? { priority: p } : {}),
    };
    return toRecord(normalizeRaw(raw));
  });
}

const summarize = (recs: readonly RequestRecord[]) => {
  const a = new SummaryAggregator();
  for (const r of recs) a.add(r);
  return a.summary({ config: {} });
};

describe('by_priority', () => {
  const prio = (id: number) => (id % 5 === 0 ? -1 : id % 5 === 1 ? 0 : 10);
  const recs = records(120, prio);

  it("is each priority's own block, keyed lowest first", () => {
    const s = summarize(recs);
    expect(s.by_priority).toBeDefined();
    expect(priorityEntries(s.by_priority!).map(([k]) => k)).toEqual(['-1', '0', '10']);
    for (const p of [-1, 0, 10]) {
      const alone = summarize(recs.filter((r) => r.priority === p));
      const { ttft_ms, e2e_ms, itl_ms, requests } = s.by_priority![String(p)];
      expect(requests).toEqual(alone.requests);
      expect(ttft_ms).toEqual(alone.ttft_ms);
      expect(e2e_ms).toEqual(alone.e2e_ms);
      expect(itl_ms).toEqual(alone.itl_ms);
    }
    expect(s.by_priority!['-1'].requests.total + s.by_priority!['0'].requests.total + s.by_priority!['10'].requests.total).toBe(120);
    expect(s.by_priority!['-1'].ttft_ms.p50!).toBeLessThan(s.by_priority!['10'].ttft_ms.p50!);
    // The interval machinery of every block applies: a TTFT p50 interval per priority.
    expect(s.by_priority!['10'].ttft_ms.ci95?.p50).toHaveLength(2);
  });

  it('is absent with one priority or none', () => {
    expect(summarize(records(30, () => 5)).by_priority).toBeUndefined();
    expect(summarize(records(30, () => undefined)).by_priority).toBeUndefined();
    // Requests without a priority are in no class: the two that have one still make a table.
    expect(Object.keys(summarize(records(30, (id) => (id < 2 ? 0 : id < 4 ? 1 : undefined))).by_priority ?? {})).toEqual(['0', '1']);
  });

  it("the record's priority survives requests.jsonl; a non-integer one is dropped", () => {
    const line = recordLine(recs[0]);
    expect(JSON.parse(line).priority).toBe(-1);
    expect(recordFromJson(JSON.parse(line)).priority).toBe(-1);
    const bad = JSON.parse(line) as Record<string, unknown>;
    bad.priority = 'urgent';
    expect(recordFromJson(bad).priority).toBeUndefined();
  });

  it('reaches the terminal and stats.csv, lowest priority first', () => {
    const s = summarize(recs);
    const text = renderSummary(s);
    const at = text.indexOf('by priority (lower runs first):');
    expect(at).toBeGreaterThan(0);
    const table = text.slice(at).split('\n').slice(1, 6);
    expect(table[0]).toMatch(/^priority\s+ok\s+errors\s+TTFT p50\s+TTFT p99\s+E2E p50\s+E2E p99\s+ITL p50\s+ITL p99\s+out tok\/s/);
    expect(table.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['-1', '0', '10']);
    const rows = labelledRows(priorityEntries(s.by_priority!), priorityColumns(s.percentiles), (v) => String(v), (v) => String(v));
    expect(rows[2][3]).toBe(String(s.by_priority!['10'].ttft_ms.p50));
    const csv = statsCsv(s).split('\n');
    expect(csv.filter((l) => l.startsWith('priority:')).map((l) => l.split(',')[0])).toEqual(['priority:-1', 'priority:0', 'priority:10']);
  });
});
