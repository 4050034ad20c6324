// Resource use of a measured run: the client host (CPU split, network), --server-pid, and the server's process from /metrics.
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { renderSummary } from '../src/report/terminal.js';
import { tmpDir } from './helpers.js';

describe('resource use', () => {
  it('the embedded server: host CPU split, the process from /metrics and from --server-pid, all in the summary and terminal', async () => {
    const res = await run({ requests: 60, concurrency: 8, inputTokens: 64, outputTokens: 32, quiet: true, scrapeInterval: 0.2, serverPid: process.pid, out: join(tmpDir(), 'r') });
    const host = (res.summary.gpu as { host: Record<string, number> }).host;
    expect(host.samples).toBeGreaterThan(0);
    expect(host.cpu_user_pct_mean + host.cpu_sys_pct_mean).toBeCloseTo(host.cpu_pct_mean, 0);
    if (process.platform === 'linux') expect(host.server_cpu_user_pct_mean).toBeGreaterThan(0); // this process did the work
    const p = res.summary.server!.process!;
    expect(p.cpu_pct_mean!).toBeGreaterThan(0);
    expect(p.rss_mib_max!).toBeGreaterThan(10);
    expect(p.cpu_user_pct_mean! + p.cpu_system_pct_mean!).toBeCloseTo(p.cpu_pct_mean!, 0);
    const text = renderSummary(res.summary);
    expect(text).toMatch(/client host: CPU [\d.]+% mean, [\d.]+% max \(user [\d.]+%, system [\d.]+%\); memory used [\d.]+ MiB max/);
    expect(text).toMatch(/server process \(--server-pid\): CPU [\d.]+% mean/);
    expect(text).toMatch(/server process \(\/metrics\): CPU [\d.]+% mean \(100% = one core\) \(user/);
  });
});
