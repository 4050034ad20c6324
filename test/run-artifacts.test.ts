// A run reads none of its records back for its own outputs: report.html and the --slo verdict come from RunArtifacts, which agree with the files.
import { describe, it, expect, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as records from '../src/artifacts/records.js';
import { simulate } from '../src/simulate.js';
import { evaluateSlo, parseSlo } from '../src/metrics/slo.js';
import { tmpDir } from './helpers.js';

// Every reader of requests.jsonl, counted (the module's own functions pass through).
vi.mock('../src/artifacts/records.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../src/artifacts/records.js')>();
  return { ...m, eachRecord: vi.fn(m.eachRecord), recordsOf: vi.fn(m.recordsOf), readRecordsSorted: vi.fn(m.readRecordsSorted), sampleRecords: vi.fn(m.sampleRecords) };
});

const reads = () => [records.eachRecord, records.recordsOf, records.readRecordsSorted, records.sampleRecords].reduce((n, f) => n + vi.mocked(f).mock.calls.length, 0);

describe('RunArtifacts', () => {
  it('report.html and the --slo verdict read no record back; the chart sample, the verdict and records() agree with requests.jsonl; records() reads once', async () => {
    const slo = 'ttft_p99=5s,e2e_p50=400ms,error_rate=1%';
    const before = reads();
    const res = await simulate({ requests: 20, warmup: 2, concurrency: 8, inputTokens: 64, outputTokens: 16, slo, out: tmpDir(), quiet: true } as never);
    expect(reads() - before).toBe(0);
    expect(res.written).toContain('report.html');
    expect(readFileSync(join(res.outDir, 'report.html'), 'utf8')).toContain('SLOs');

    const a = res.artifacts;
    const onDisk = records.sampleRecords(res.outDir, records.CHART_SAMPLE_MAX);
    expect(a.chartSample.total).toBe(onDisk.total);
    expect(a.chartSample.records.map((r) => [r.id, r.attempt, r.ttft_ms, r.e2e_ms])).toEqual(onDisk.records.map((r) => [r.id, r.attempt, r.ttft_ms, r.e2e_ms]));
    const spec = parseSlo(slo);
    expect(a.slo?.text).toBe(spec.text);
    expect(a.slo?.result).toEqual(evaluateSlo(res.summary, records.recordsOf(join(res.outDir, 'requests.jsonl')), spec));
    expect(a.summary).toEqual(JSON.parse(readFileSync(join(res.outDir, 'summary.json'), 'utf8')));
    expect(a.meta).toEqual(JSON.parse(readFileSync(join(res.outDir, 'run.json'), 'utf8')));

    const n = vi.mocked(records.readRecordsSorted).mock.calls.length;
    expect(res.records).toHaveLength(22);
    expect(res.records).toBe(a.records());
    expect(vi.mocked(records.readRecordsSorted).mock.calls.length - n).toBe(1);
  });

  it('a record sample keeps at most max records, every k-th, sorted by id then attempt', () => {
    const s = new records.RecordSample(4);
    for (let id = 20; id >= 0; id--) s.add({ id, attempt: 1 } as never);
    expect(s.total).toBe(21);
    // k doubled at 8 and 16 kept, then every other one of the 6 kept: the 0th, 8th and 16th added.
    expect(s.records().map((r) => r.id)).toEqual([4, 12, 20]);
    const small = new records.RecordSample(4);
    for (const [id, attempt] of [[2, 2], [1, 1], [2, 1]]) small.add({ id, attempt } as never);
    expect(small.records().map((r) => `${r.id}.${r.attempt}`)).toEqual(['1.1', '2.1', '2.2']);
  });
});
