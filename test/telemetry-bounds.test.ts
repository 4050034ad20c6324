// Issue 25: every telemetry source is bounded: a day of samples streams into its summary, a hostile nvidia-smi
// (a grandchild holding stdout, a line without end, GPU indices that never repeat, escapes on stderr, silence), a
// failing DCGM exporter and a redirecting remote-write endpoint each cost one clear line, never the run.
import { describe, it, expect, afterEach, vi } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createNvidiaSmiSampler } from '../src/telemetry/gpu/nvidia-smi.js';
import { createDcgmSampler } from '../src/telemetry/gpu/dcgm.js';
import { summarizeGpuSamples, type GpuSample } from '../src/telemetry/gpu/sample.js';
import { serverSummary } from '../src/telemetry/server-summary.js';
import { forEachLine, Thinner } from '../src/telemetry/jsonl-lines.js';
import type { ServerSample } from '../src/telemetry/normalize.js';
import { startRemoteWrite } from '../src/report/live/remote-write.js';
import { compactTimings, withRates } from '../src/metrics/server-timings.js';
import type { Summary } from '../src/metrics/summary-model.js';
import { maxOf, minOf } from '../src/util/min-max.js';
import { overTime } from '../src/report/html/run-data.js';
import type { RequestRecord } from '../src/metrics/record.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const dir = mkdtempSync(join(tmpdir(), 'tf-bounds-'));
/** A fake nvidia-smi: an executable script written for one test. */
function script(name: string, body: string): string {
  const p = join(dir, name);
  writeFileSync(p, body);
  chmodSync(p, 0o755);
  return p;
}
/** Whether `pid` is a live process (a zombie is not). */
const running = (pid: number): boolean => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const within = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> => Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref())]);
const until = async (f: () => boolean, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!f() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
};

describe('a day of samples (issue 25 G16)', () => {
  const client = { ttft_ms: { count: 0 }, itl_ms: { count: 0 } } as unknown as Summary;
  it('the server section of 200,000 samples: running gauge statistics, no spread into Math.max', () => {
    const samples: ServerSample[] = Array.from({ length: 200_000 }, (_, i) => ({ t_ms: i * 1000, engine: 'vllm', gauges: { running: i % 10, waiting: i % 7 }, counters: { preemptions: i }, histograms: {}, raw: {} }));
    const s = serverSummary(samples, null, client)!;
    expect(s.samples).toBe(200_000);
    expect(s.waiting_max).toBe(6);
    expect(s.running_mean).toBeCloseTo(4.5, 2);
    expect(s.preemptions).toBe(199_999);
  });
  it('the GPU summary of 200,000 readings', () => {
    const sets = Array.from({ length: 1000 }, (_, t) => Array.from({ length: 200 }, (_, g): GpuSample => ({ gpu: String(g), util_pct: (t + g) % 101, fb_used_mib: g })));
    const s = summarizeGpuSamples(sets);
    expect(s.util_pct_max).toBe(100);
    expect(s.fb_used_mib_max).toBe(199);
    expect(s.gpus).toHaveLength(200);
    expect(s.gpus[0].samples).toBe(1000);
    // A source inventing GPUs: at most MAX_GPUS entries.
    expect(summarizeGpuSamples([Array.from({ length: 300 }, (_, g): GpuSample => ({ gpu: String(g) }))]).gpus).toHaveLength(256);
  });
  it('min and max of 300,000 values (records of a long run in report.html, calibrate, fidelity): loops, not spreads', () => {
    const xs = Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 300_000);
    expect(maxOf(xs)).toBe(299_999);
    expect(minOf(xs)).toBe(0);
    expect(maxOf([])).toBe(-Infinity);
    expect(minOf([], 0)).toBe(0);
    // report.html's throughput-over-time chart of 200,000 records.
    const recs = Array.from({ length: 200_000 }, (_, i) => ({ sent_at_ms: i, end_ms: 10, output_tokens: 1, status: 'http_error', warmup: false }) as unknown as RequestRecord);
    expect(overTime(recs).output_tok_s.length).toBeGreaterThan(0);
  });
  it('report.html charts a day of samples thinned evenly (first and last kept), not 86,400 points', () => {
    const t = new Thinner<number>(1000);
    for (let i = 0; i < 86_400; i++) t.add(i);
    const r = t.result();
    expect(r.length).toBeGreaterThanOrEqual(1000);
    expect(r.length).toBeLessThanOrEqual(2001);
    expect(r[0]).toBe(0);
    expect(r.at(-1)).toBe(86_399);
    const gaps = new Set(r.slice(1, -1).map((x, i) => x - r[i]));
    expect(gaps.size).toBe(1);
  });
  it('a jsonl is read in chunks, never as one string: lines past the cap are skipped and counted', () => {
    const p = join(dir, 'big.jsonl');
    // 3,000 lines of ~1 KB, one of 50 KB, with multi-byte characters across chunk edges; read 4 KiB at a time.
    const line = (i: number) => JSON.stringify({ i, pad: 'é'.repeat(500) });
    const text = Array.from({ length: 3000 }, (_, i) => (i === 1500 ? 'x'.repeat(50_000) : line(i))).join('\n') + '\n';
    writeFileSync(p, text);
    const seen: number[] = [];
    let longest = 0;
    const r = forEachLine(p, (l) => {
      longest = Math.max(longest, l.length);
      seen.push((JSON.parse(l) as { i: number }).i);
    }, { chunkBytes: 4096, maxLineChars: 2048 });
    expect(r).toEqual({ lines: 2999, tooLong: 1 });
    expect(seen.length).toBe(2999);
    expect(seen[1500]).toBe(1501);
    expect(longest).toBeLessThanOrEqual(2048);
  });
});

describe('a hostile nvidia-smi (issue 25 G18, item 27)', () => {
  const start = async (command: string, extra: Partial<Parameters<typeof createNvidiaSmiSampler>[0]> = {}) => {
    const problems: string[] = [];
    const sets: GpuSample[][] = [];
    const s = createNvidiaSmiSampler({ intervalMs: 100, command, onProblem: (m) => problems.push(m), ...extra });
    await s.start((g) => sets.push(g));
    closers.push(() => s.stop());
    return { s, problems, sets };
  };

  it('a wrapper whose child keeps stdout open and ignores SIGTERM: stop returns, the process group is killed', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const cmd = script('smi-grandchild', `#!/bin/sh\ntrap "" TERM\nsleep 300 &\necho $! > ${pidFile}\necho "0, GPU-x, Fake, 50, 100, 1000, 10, 40, 1000, 1000"\nwait\n`);
    const { s, sets } = await start(cmd);
    await until(() => sets.length > 0, 3000);
    expect(await within(s.stop(), 8000)).not.toBe('timeout');
    // The grandchild went with the group (gone, or a zombie no one reaped).
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !running(pid), 3000);
    expect(running(pid)).toBe(false);
  }, 15_000);

  it('bytes without a newline: dropped past the line cap with one warning, the line after is read', async () => {
    const cmd = script('smi-noline', `#!/usr/bin/env node\nprocess.stdout.write('x'.repeat(200000));\nprocess.stdout.write('\\n0, GPU-x, Fake, 50, 100, 1000, 10, 40, 1000, 1000\\n');\nsetInterval(() => {}, 1000);\n`);
    const { s, problems, sets } = await start(cmd, { maxLineChars: 4096 });
    await until(() => sets.length > 0, 5000);
    expect(sets[0][0]).toMatchObject({ gpu: '0', util_pct: 50 });
    expect(problems.filter((p) => /longer than 4096 characters/.test(p))).toHaveLength(1);
    expect(s.stats!().dropped_lines).toBe(1);
  }, 15_000);

  it('GPU indices that never repeat: sample sets stay at most 64 GPUs', async () => {
    const cmd = script('smi-manyidx', `#!/usr/bin/env node\nconst l = [];\nfor (let i = 0; i < 3000; i++) l.push(i + ', GPU-' + i + ', Fake, 1, 1, 2, 1, 30, 1, 1');\nprocess.stdout.write(l.join('\\n') + '\\n');\nsetInterval(() => {}, 1000);\n`);
    const { sets } = await start(cmd);
    await until(() => sets.reduce((n, g) => n + g.length, 0) >= 3000, 5000);
    expect(sets.reduce((n, g) => n + g.length, 0)).toBe(3000);
    expect(Math.max(...sets.map((g) => g.length))).toBeLessThanOrEqual(64);
  }, 15_000);

  it('escape sequences on stderr never reach the message', async () => {
    const cmd = script('smi-escape', `#!/usr/bin/env node\nprocess.stderr.write('\\u001b]0;pwned\\u0007\\u001b[2JNVML failed\\n');\nprocess.exit(9);\n`);
    const { problems } = await start(cmd);
    await until(() => problems.some((p) => /exited/.test(p)), 5000);
    const m = problems.find((p) => /exited/.test(p))!;
    expect(m).toContain('NVML failed');
    expect(m).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  }, 15_000);

  it('an nvidia-smi that prints nothing: one warning', async () => {
    const cmd = script('smi-silent', '#!/usr/bin/env node\nsetInterval(() => {}, 1000);\n');
    const { s, problems } = await start(cmd, { silentMs: 300 });
    await until(() => problems.length > 0, 5000);
    await s.stop();
    expect(problems.filter((p) => /printed no GPU line/.test(p))).toHaveLength(1);
  }, 15_000);
});

describe('a failing DCGM exporter and a redirecting remote write (issue 25 item 27)', () => {
  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server: Server = createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('DCGM: a scrape failing every interval is warned once, the rest counted', async () => {
    let n = 0;
    const url = await serve((_req, res) => {
      if (n++ === 0) return res.end('DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a"} 40\n');
      res.writeHead(500).end('boom');
    });
    const problems: string[] = [];
    const s = createDcgmSampler({ url: `${url}/metrics`, intervalMs: 50, onProblem: (m) => problems.push(m) });
    await s.start(() => {});
    await until(() => n >= 5, 5000);
    await s.stop();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/HTTP 500/);
    expect(s.stats!().failed_scrapes).toBeGreaterThanOrEqual(3);
  });

  it('remote write: a redirect is named with its status and host, never its path or query', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(307, { location: 'http://127.0.0.1:1/api/v1/write?token=SECRET123' }).end();
    });
    const warned: string[] = [];
    const w = startRemoteWrite(new Registry(), { url: `${url}/write`, intervalMs: 60_000, warn: (l) => warned.push(l) });
    await w.push();
    await w.close();
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatch(/HTTP 307 redirect to 127\.0\.0\.1:1/);
    expect(warned[0]).not.toContain('SECRET123');
  });
});

describe('server_* timings (issue 25 G25)', () => {
  it('times and rates out of range are dropped like bad usage', () => {
    expect(compactTimings({ server_total_ms: 1e20, server_eval_ms: 12, server_prompt_tokens: -3, server_eval_tokens: 5 })).toEqual({ server_eval_ms: 12, server_eval_tokens: 5 });
    expect(withRates({ server_eval_tokens: 1e14, server_eval_ms: 1e-3 }).server_predicted_per_s).toBeUndefined();
  });
});
