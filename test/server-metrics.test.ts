// Server metrics on the run's timeline: whole runs against the sim server's /metrics, a target without one, a stalling one.
import { describe, it, expect, afterEach, vi } from 'vitest';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { replaySummary } from '../src/report/results-dir.js';
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

/** A front for the sim server that forwards everything but /metrics, which `onMetrics` answers (or never does). */
async function front(target: SimServerHandle, onMetrics: ((req: IncomingMessage, res: ServerResponse) => void) | null, routes: Record<string, (res: ServerResponse) => void> = {}): Promise<{ baseUrl: string; metricsHits: () => number }> {
  let hits = 0;
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) return route(res);
    if (onMetrics && (req.url ?? '').startsWith('/metrics')) {
      hits++;
      held.push(res);
      return onMetrics(req, res);
    }
    const up = httpRequest({ host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const h of held) h.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, metricsHits: () => hits };
}

const stderrLines = (spy: ReturnType<typeof vi.spyOn>): string[] => spy.mock.calls.map((c: unknown[]) => String(c[0]));

describe('server metrics', () => {
  it('a load that queues (concurrency 16 > max_num_seqs 4): server_metrics.jsonl, queue + prefill explain the TTFT p50, queue-bound; report agrees', async () => {
    const s = await sim({ maxNumSeqs: 4, timeScale: 2 });
    const out = tmpDir();
    const res = await run({ baseUrl: s.baseUrl, requests: 160, concurrency: 16, inputTokens: 256, outputTokens: 32, out, quiet: true });
    const lines = readFileSync(join(out, 'server_metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(typeof l.t_ms).toBe('number');
    expect(lines[0].engine).toBe('vllm');
    // Unknown series are kept raw (vllm:request_success_total is not mapped).
    expect(Object.keys(lines[lines.length - 1].raw).some((k) => k.startsWith('vllm:request_success_total'))).toBe(true);
    const srv = res.summary.server!;
    expect(srv.engine).toBe('vllm');
    expect(srv.time_scale).toBe(2);
    expect(srv.times.queue!.count).toBe(160);
    expect(srv.waiting_max!).toBeGreaterThan(0);
    const d = srv.ttft_decomposition!;
    const explained = d.queue_mean_ms! + d.prefill_mean_ms!;
    expect(explained / res.summary.ttft_ms.p50!).toBeGreaterThan(0.8);
    expect(explained / res.summary.ttft_ms.p50!).toBeLessThan(1.2);
    expect(srv.findings.map((f) => f.kind)).toContain('queue_bound');
    const run_ = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(run_.server_metrics).toMatchObject({ found: true, engine: 'vllm', failed_scrapes: 0 });
    expect(run_.server_metrics.samples).toBe(lines.length);
    expect(run_.server_identity.max_model_len).toBeGreaterThan(0);
    expect(res.written).toContain('server_metrics.jsonl');
    // `report` re-derives the same summary, server section included.
    const onDisk = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(JSON.parse(JSON.stringify(replaySummary(out).summary))).toEqual(onDisk);
    expect(renderSummary(res.summary)).toMatch(/queue-bound/);
  }, 60_000);

  it('a target without /metrics runs as before, with one line saying so', async () => {
    const s = await sim({ timeScale: 20 });
    const f = await front(s, (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html>no</html>');
    });
    const spy = vi.spyOn(process.stderr, 'write');
    const out = tmpDir();
    const res = await run({ baseUrl: f.baseUrl, requests: 20, concurrency: 4, inputTokens: 32, outputTokens: 8, out, quiet: true });
    const said = stderrLines(spy).filter((l) => /server metrics/.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/server metrics not found at http:\/\/127\.0\.0\.1:\d+\/metrics \(HTTP 404\)/);
    expect(res.summary.requests.ok).toBe(20);
    expect(res.summary.server).toBeUndefined();
    expect(existsSync(join(out, 'server_metrics.jsonl'))).toBe(false);
    expect(f.metricsHits()).toBe(1); // tried once, then left alone
    // Found absent by the first scrape on the run's thread: no scrape worker was started for it.
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).server_metrics).toMatchObject({ found: false, samples: 0, failed_scrapes: 0, parsed_in: null });
  }, 60_000);

  it('--no-server-metrics: /metrics is never asked', async () => {
    const s = await sim({ timeScale: 20 });
    const f = await front(s, (_req, res) => res.end('x 1\n'));
    const res = await run({ baseUrl: f.baseUrl, requests: 5, concurrency: 1, inputTokens: 32, outputTokens: 4, out: tmpDir(), quiet: true, serverMetrics: false });
    expect(res.summary.requests.ok).toBe(5);
    expect(f.metricsHits()).toBe(0);
    expect(res.summary.run.server_metrics).toBeUndefined();
  }, 60_000);

  it('engine identity: vLLM /version and max_model_len into run.json, server text capped and made inert', async () => {
    const s = await sim({ timeScale: 20 });
    const f = await front(s, null, {
      '/version': (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ version: '0.11.0\u001b]0;pwned\u0007' + 'x'.repeat(5000) }));
      },
    });
    const out = tmpDir();
    await run({ baseUrl: f.baseUrl, requests: 4, concurrency: 2, inputTokens: 32, outputTokens: 4, out, quiet: true });
    const id = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).server_identity;
    expect(id.engine).toBe('vllm');
    expect(id.version.startsWith('0.11.0]0;pwned')).toBe(true);
    expect(id.version).not.toMatch(/[\u0000-\u001f]/);
    expect(id.version.length).toBeLessThanOrEqual(200);
    expect(id.max_model_len).toBe(131072);
  }, 60_000);

  it('a credential the server echoes in a metric label is not written to server_metrics.jsonl', async () => {
    const KEY = 'sk-echoed-in-a-label-0123456789';
    const s = await sim({ timeScale: 20 });
    const f = await front(s, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(`# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m",api_key="${KEY}"} 1\n# TYPE vllm:lora_requests_info gauge\nvllm:lora_requests_info{running_lora_adapters="${KEY}"} 1\n`);
    });
    const out = tmpDir();
    await run({ baseUrl: f.baseUrl, apiKey: KEY, requests: 4, concurrency: 2, inputTokens: 32, outputTokens: 4, out, quiet: true });
    const text = readFileSync(join(out, 'server_metrics.jsonl'), 'utf8');
    expect(text.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(text).toContain('vllm:lora_requests_info');
    expect(text).not.toContain(KEY);
  }, 60_000);

  for (const transport of ['h1', 'undici'] as const)
    it(`[${transport}] a /metrics that stalls after the first scrape never delays a request`, async () => {
      const s = await sim({ timeScale: 4 });
      let n = 0;
      // The first scrape answers (metrics found); every later one is accepted and never answered.
      const f = await front(s, (_req, res) => {
        if (n++ === 0) res.end('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n');
      });
      const load = { requests: 60, concurrency: 4, inputTokens: 64, outputTokens: 16, quiet: true, transport };
      const base = await run({ ...load, baseUrl: s.baseUrl, out: tmpDir(), serverMetrics: false });
      const stalled = await run({ ...load, baseUrl: f.baseUrl, out: tmpDir(), scrapeInterval: 0.2 });
      expect(stalled.summary.requests.ok).toBe(60);
      const meta = stalled.summary.run.server_metrics as { found: boolean; failed_scrapes: number };
      expect(meta.found).toBe(true);
      expect(meta.failed_scrapes).toBeGreaterThanOrEqual(2);
      // Same work, same pace: the stalled scrapes cost the run no time beyond noise (and the final scrape's 200 ms deadline).
      expect(stalled.summary.duration_s).toBeLessThan(base.summary.duration_s * 1.5 + 1);
      expect(stalled.summary.ttft_ms.p50!).toBeLessThan(base.summary.ttft_ms.p50! * 1.5 + 50);
      expect(stalled.summary.schedule_lag_ms.p99!).toBeLessThan(100);
    }, 60_000);
});
