// --metrics-port during a real run on the embedded server: scrapes while it runs, final counters equal requests.jsonl.
import { describe, it, expect } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { registerRun } from '../src/cli/run.js';
import { recordsOf } from '../src/report/results-dir.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { runCli } from './fixtures/cli-harness.js';
import { startCli, until } from './fixtures/live-cli.js';
import { tmpDir } from './helpers.js';
import { histCount, scrape, total } from './fixtures/prom-scrape.js';

describe('--metrics-port', () => {
  it('serves live counters during the run that rise, and after it the final counts equal the records', { timeout: 60_000 }, async () => {
    const out = tmpDir();
    const cli = startCli(registerRun, ['run', '--requests', '30', '--warmup', '3', '--concurrency', '4', '--input-tokens', '32', '--output-tokens', '32', '--sim-time-scale', '4', '--out', out, '--metrics-port', '0', '--metrics-linger', '3s']);
    const url = await until(() => /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(cli.err())?.[1], 20_000, 'the metrics URL');
    // At least two scrapes while requests are still being sent, each count at least the one before.
    const during: number[] = [];
    await until(async () => {
      const fams = await scrape(url);
      if (total(fams, 'tokenflood_run_finished') === 0) during.push(total(fams, 'tokenflood_requests_total'));
      return during.length >= 2 || total(fams, 'tokenflood_run_finished') === 1 ? true : undefined;
    }, 30_000, 'two scrapes during the run');
    expect(during.length, 'the run ended before a second scrape').toBeGreaterThanOrEqual(2);
    expect(during).toEqual([...during].sort((a, b) => a - b));
    const final = await until(async () => {
      const fams = await scrape(url);
      return total(fams, 'tokenflood_run_finished') === 1 ? fams : undefined;
    }, 40_000, 'tokenflood_run_finished 1');
    const records: RequestRecord[] = [...recordsOf(join(out, 'requests.jsonl'))];
    const measured = records.filter((r) => !r.warmup);
    const ok = measured.filter((r) => r.status === 'ok');
    expect(measured.length).toBe(30);
    expect(total(final, 'tokenflood_requests_total')).toBe(measured.length);
    expect(total(final, 'tokenflood_requests_total', { outcome: 'ok' })).toBe(ok.length);
    expect(total(final, 'tokenflood_warmup_requests_total')).toBe(records.length - measured.length);
    expect(total(final, 'tokenflood_output_tokens_total')).toBe(ok.reduce((a, r) => a + (r.output_tokens ?? 0), 0));
    expect(total(final, 'tokenflood_input_tokens_total')).toBe(ok.reduce((a, r) => a + (r.input_tokens ?? 0), 0));
    expect(histCount(final, 'tokenflood_ttft_seconds')).toBe(ok.filter((r) => r.ttft_ms !== null).length);
    expect(histCount(final, 'tokenflood_itl_seconds')).toBe(ok.reduce((a, r) => a + r.itl_ms.length, 0));
    expect(total(final, 'tokenflood_requests_in_flight')).toBe(0);
    // Every figure carries the run's label: the results directory's name.
    const runLabel = out.split('/').at(-1);
    expect(final.find((f) => f.name === 'tokenflood_requests_total')!.metrics.every((m) => m.labels?.run === runLabel)).toBe(true);
    expect(await cli.done).toBe(0);
    expect(cli.err()).toContain('--metrics-linger');
    // Closed once the linger is over.
    await expect(fetch(url)).rejects.toThrow();
  });

  it('bad values are exit 2 naming the flag, before anything is sent', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      const inUse = await runCli(registerRun, ['run', '--requests', '1', '--out', tmpDir(), '--metrics-port', String(port)]);
      expect(inUse.code).toBe(2);
      expect(inUse.err).toContain(`--metrics-port: port ${port} is in use`);
      expect(inUse.out).not.toContain('model');
    } finally {
      busy.close();
    }
    for (const [argv, msg] of [
      [['--metrics-port', '70000'], '--metrics-port: expected a port from 0 to 65535'],
      [['--metrics-host', '0.0.0.0'], '--metrics-host: needs --metrics-port'],
      [['--metrics-linger', '5s'], '--metrics-linger: needs --metrics-port'],
      [['--out-interval', '100ms'], '--out-interval: expected at least 500ms'],
      [['--out', 'prometheus-rw=ftp://x/'], '--out: prometheus-rw=: expected an http:// or https:// URL'],
      [['--out', tmpDir(), '--out', tmpDir()], '--out: 2 results directories given'],
      [['--out', 'influxdb=http://127.0.0.1:8086/write'], '--out: unknown kind "influxdb" (valid: prometheus-rw)'],
    ] as const) {
      const r = await runCli(registerRun, ['run', '--requests', '1', ...argv]);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(msg);
    }
  });
});

describe.each(['h1', 'undici'] as const)('live metrics classify failures as the records do (transport %s)', (transport) => {
  it('HTTP 429 and a reset mid-stream are counted by kind, equal to requests.jsonl', { timeout: 60_000 }, async () => {
    const { startScriptServer, chatChunk, usageChunk, DONE } = await import('./fixtures/script-server.js');
    const { startLiveOutputs } = await import('../src/report/live/outputs.js');
    const { run } = await import('../src/run.js');
    const okSteps = [{ at: 0, write: chatChunk({ role: 'assistant', content: '' }) }, { at: 5, write: chatChunk({ content: ' a' }) }, { at: 10, write: chatChunk({ content: ' b' }) }, { at: 15, write: usageChunk(8, 2) + DONE }];
    const server = await startScriptServer((_b, n) =>
      n % 4 === 1 ? { status: 429, headers: { 'content-type': 'application/json' }, steps: [{ at: 0, write: '{"error":{"message":"slow down"}}' }] }
      : n % 4 === 2 ? { steps: [{ at: 0, write: chatChunk({ content: ' x' }) }, { at: 5, destroy: true }] }
      : { steps: okSteps });
    const live = await startLiveOutputs({ metricsPort: 0, metricsHost: '127.0.0.1', metricsLinger: 0, outInterval: 5, outputs: [] }, { notice: () => {} });
    try {
      const res = await run({ baseUrl: server.baseUrl, requests: 16, concurrency: 2, inputTokens: 8, outputTokens: 2, out: tmpDir(), quiet: true, transport, serverMetrics: false }, { reporters: [live.reporter()] });
      const fams = await scrape(live.metricsUrl!);
      const byStatus = new Map<string, number>();
      for (const r of res.records) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      expect(byStatus.get('http_error')).toBeGreaterThan(0);
      expect(byStatus.get('network_error')).toBeGreaterThan(0);
      for (const [status, n] of byStatus) expect(total(fams, 'tokenflood_requests_total', status === 'ok' ? { outcome: 'ok' } : { outcome: 'error', error_kind: status }), status).toBe(n);
      expect(total(fams, 'tokenflood_requests_total')).toBe(16);
    } finally {
      await live.close();
      await server.close();
    }
  });
});
