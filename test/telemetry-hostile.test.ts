// Issue 25: a huge /metrics page is parsed in a worker and capped, hostile server numbers are dropped and counted,
// vLLM's spec-decode counters reach the server section; whole runs against the sim and scripted loopback servers.
import { describe, it, expect, afterEach, vi } from 'vitest';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { renderSummary } from '../src/report/terminal.js';
import { tmpDir } from './helpers.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  vi.restoreAllMocks();
});

async function sim(opts: Parameters<typeof startSimServer>[0]): Promise<SimServerHandle> {
  const s = await startSimServer(opts);
  closers.push(() => s.close());
  return s;
}

/** A front for the sim server: everything is forwarded but /metrics, which `page()` answers. */
async function front(target: SimServerHandle, page: () => string): Promise<string> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').startsWith('/metrics')) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      return res.end(page());
    }
    const up = httpRequest({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const said = (spy: ReturnType<typeof vi.spyOn>, re: RegExp): string[] => spy.mock.calls.map((c: unknown[]) => String(c[0])).filter((l) => re.test(l));
const jsonl = (dir: string): string[] => readFileSync(join(dir, 'server_metrics.jsonl'), 'utf8').trim().split('\n');

const load = { requests: 24, concurrency: 4, inputTokens: 32, outputTokens: 16, quiet: true, scrapeInterval: 0.2 } as const;

describe('a huge /metrics page (issue 25 G19)', () => {
  // 200 KB of series no mapping uses, then the mapped ones: past a 64 KiB cap the page is cut at its last whole line.
  const filler = Array.from({ length: 4000 }, (_, i) => `filler_series_${i}{a="${'x'.repeat(20)}"} ${i}`).join('\n');
  const page = () => `# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 2\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 1\n${filler}\n`;
  for (const transport of ['h1', 'undici'] as const)
    it(`[${transport}] is parsed in the scrape worker, cut at --scrape-max-bytes with one warning, and only mapped series reach the jsonl`, async () => {
      const s = await sim({ timeScale: 10 });
      const baseUrl = await front(s, page);
      const spy = vi.spyOn(process.stderr, 'write');
      const out = tmpDir();
      const res = await run({ ...load, transport, baseUrl, out, scrapeMaxBytes: 65536 });
      expect(res.summary.requests.ok).toBe(24);
      const meta = res.summary.run.server_metrics as { found: boolean; parsed_in: string; max_bytes: number; samples: number };
      expect(meta).toMatchObject({ found: true, parsed_in: 'worker', max_bytes: 65536 });
      expect(meta.samples).toBeGreaterThanOrEqual(2);
      expect(said(spy, /larger than --scrape-max-bytes/)).toHaveLength(1);
      const lines = jsonl(out);
      for (const l of lines) {
        expect(l).not.toContain('filler_series');
        expect(l.length).toBeLessThan(4096);
        expect(JSON.parse(l).gauges).toEqual({ running: 2, waiting: 1 });
      }
    }, 60_000);
});

describe('hostile server numbers (issue 25 G25)', () => {
  const hostile = [
    '# TYPE vllm:num_requests_running gauge', 'vllm:num_requests_running 3',
    '# TYPE vllm:num_requests_waiting gauge', 'vllm:num_requests_waiting -7',
    '# TYPE vllm:kv_cache_usage_perc gauge', 'vllm:kv_cache_usage_perc +Inf',
    '# TYPE vllm:num_preemptions_total counter', 'vllm:num_preemptions_total -12',
    '# TYPE vllm:request_prefill_time_seconds histogram',
    'vllm:request_prefill_time_seconds_bucket{le="+Inf"} 10', 'vllm:request_prefill_time_seconds_sum 1e303', 'vllm:request_prefill_time_seconds_count 10',
    '',
  ].join('\n');
  for (const transport of ['h1', 'undici'] as const)
    it(`[${transport}] negative counts, Infinity ratios and impossible times are dropped, counted and said once`, async () => {
      const s = await sim({ timeScale: 10 });
      const baseUrl = await front(s, () => hostile);
      const spy = vi.spyOn(process.stderr, 'write');
      const out = tmpDir();
      const res = await run({ ...load, transport, baseUrl, out });
      const srv = res.summary.server!;
      expect(srv.running_mean).toBe(3);
      expect(srv.waiting_max).toBeNull();
      expect(srv.kv_usage_max).toBeNull();
      expect(srv.preemptions).toBeNull();
      expect(srv.times.prefill).toBeUndefined();
      expect(srv.rejected_values).toBeGreaterThan(0);
      expect(JSON.stringify(srv)).not.toMatch(/e\+30|Infinity|-7|-12/);
      expect(srv.findings.map((f) => f.message).join(' ')).not.toMatch(/e\+/);
      expect(said(spy, /out of range was dropped/)).toHaveLength(1);
      expect((res.summary.run.server_metrics as { rejected_values: number }).rejected_values).toBeGreaterThan(0);
      const text = renderSummary(res.summary);
      expect(text).not.toMatch(/Infinity|e\+30/);
      expect(text).toMatch(/server values out of range were dropped/);
    }, 60_000);
});

describe('speculative decoding in the server section (issue 25 F13)', () => {
  for (const transport of ['h1', 'undici'] as const)
    it(`[${transport}] vLLM's spec_decode counters give the acceptance rate and mean acceptance length, on the terminal too`, async () => {
      const s = await sim({ modelProfile: 'tiny', gpu: 'tiny-gpu', specMethod: 'ngram', specTokens: 3, specAcceptance: 0.7, timeScale: 20 });
      const res = await run({ ...load, transport, outputTokens: 64, baseUrl: s.baseUrl, out: tmpDir() });
      const sd = res.summary.server!.spec_decode!;
      expect(sd.draft_tokens).toBeGreaterThan(0);
      expect(sd.accepted_tokens).toBeGreaterThan(0);
      expect(sd.acceptance_rate).toBeGreaterThan(0.3);
      expect(sd.acceptance_rate).toBeLessThanOrEqual(1);
      expect(sd.acceptance_rate).toBeCloseTo(sd.accepted_tokens! / sd.draft_tokens!, 3);
      expect(sd.mean_acceptance_length).toBeGreaterThan(1);
      expect(sd.mean_acceptance_length).toBeLessThanOrEqual(4);
      expect(renderSummary(res.summary)).toMatch(/speculative decoding: acceptance \d+(\.\d)?%/);
    }, 60_000);
});
