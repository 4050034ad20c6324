// --out prometheus-rw=URL during a real run: pushes decode to the run's figures; a failing endpoint warns once and the run goes on.
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { registerRun } from '../src/cli/run.js';
import { recordsOf } from '../src/report/results-dir.js';
import { encodeWriteRequest } from '../src/report/live/write-request.js';
import { runCli } from './fixtures/cli-harness.js';
import { decodeWriteRequest, startReceiver, type Series } from './fixtures/remote-write-receiver.js';
import { tmpDir } from './helpers.js';

const sum = (series: Series[], name: string, where: Record<string, string> = {}) =>
  series.filter((s) => s.labels.__name__ === name && Object.entries(where).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.samples[0].value, 0);

const runArgs = (out: string) => ['run', '--requests', '30', '--concurrency', '3', '--input-tokens', '32', '--output-tokens', '32', '--sim-time-scale', '2', '--out', out];

describe('--out prometheus-rw=URL', () => {
  it('the encoder writes a WriteRequest the receiver decodes: sorted labels, double values, ms timestamps', () => {
    const series = decodeWriteRequest(encodeWriteRequest([{ labels: { z: 'ü', __name__: 'm_total', a: '' }, value: 0.1 + 0.2, timestampMs: 1_764_600_000_123 }]));
    expect(series).toEqual([{ labels: { __name__: 'm_total', a: '', z: 'ü' }, samples: [{ value: 0.1 + 0.2, timestampMs: 1_764_600_000_123 }] }]);
  });

  it('pushes during the run and once at the end, with the headers of remote write 1.0 and the final counts of the records', { timeout: 60_000 }, async () => {
    const rx = await startReceiver();
    const out = tmpDir();
    try {
      const withUser = rx.url.replace('http://', 'http://alice:s3cret-pw@');
      const r = await runCli(registerRun, [...runArgs(out), '--out', `prometheus-rw=${withUser}`, '--out-interval', '500ms']);
      expect(r.code, r.err).toBe(0);
      expect(rx.pushes.length).toBeGreaterThanOrEqual(2);
      for (const p of rx.pushes) {
        expect(p.headers['content-type']).toBe('application/x-protobuf');
        expect(p.headers['content-encoding']).toBe('snappy');
        expect(p.headers['x-prometheus-remote-write-version']).toBe('0.1.0');
        // User info in the URL becomes Basic auth (fetch sends none from a URL).
        expect(p.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret-pw').toString('base64')}`);
        for (const s of p.series) expect(Object.keys(s.labels)).toEqual(Object.keys(s.labels).sort());
      }
      // Pushed while the run went (not final yet), then the final values.
      expect(rx.pushes.some((p) => sum(p.series, 'tokenflood_run_finished') === 0)).toBe(true);
      const last = rx.pushes.at(-1)!.series;
      expect(sum(last, 'tokenflood_run_finished')).toBe(1);
      const records = [...recordsOf(join(out, 'requests.jsonl'))];
      const ok = records.filter((x) => x.status === 'ok' && !x.warmup);
      expect(sum(last, 'tokenflood_requests_total')).toBe(records.length);
      expect(sum(last, 'tokenflood_requests_total', { outcome: 'ok' })).toBe(ok.length);
      expect(sum(last, 'tokenflood_output_tokens_total')).toBe(ok.reduce((a, x) => a + (x.output_tokens ?? 0), 0));
      expect(sum(last, 'tokenflood_ttft_seconds_count')).toBe(ok.length);
      expect(sum(last, 'tokenflood_ttft_seconds_bucket', { le: '+Inf' })).toBe(ok.length);
      expect(last.every((s) => s.labels.run === out.split('/').at(-1))).toBe(true);
      // Counters never go down from one push to the next.
      const counts = rx.pushes.map((p) => sum(p.series, 'tokenflood_requests_total'));
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      // The password is printed nowhere and not written to run.json.
      expect(r.err + r.out).not.toContain('s3cret-pw');
      expect(r.err).toContain(`pushing metrics to ${rx.url}`);
      expect(readFileSync(join(out, 'run.json'), 'utf8')).not.toContain('s3cret-pw');
    } finally {
      await rx.close();
    }
  });

  it.each([500, 'hang'] as const)('an endpoint that answers %s warns once, never quotes the server, and the run completes', { timeout: 60_000 }, async (status) => {
    const rx = await startReceiver(status);
    const out = tmpDir();
    try {
      const r = await runCli(registerRun, [...runArgs(out), '--out', `prometheus-rw=${rx.url}`, '--out-interval', '500ms']);
      expect(r.code, r.err).toBe(0);
      expect(r.err.match(/remote write to .* failed/g)).toHaveLength(1);
      expect(r.err).toContain(status === 500 ? 'failed (HTTP 500)' : 'failed (no answer within 500 ms)');
      expect(r.err).not.toContain('pwned');
      expect([...recordsOf(join(out, 'requests.jsonl'))].filter((x) => x.status === 'ok')).toHaveLength(30);
    } finally {
      await rx.close();
    }
  });
});
