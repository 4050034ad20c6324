import { describe, it, expect } from 'vitest';
import { cpuSplit, parseProcStat } from './gpu/host.js';
import { normalizeScrape } from './normalize.js';
import { parsePromText } from './prom-text.js';
import { serverSummary } from './server-summary.js';
import { resourceLines } from '../report/resource-terminal.js';
import type { Summary } from '../metrics/summary-model.js';

const scrape = (t: number, cpu: number, user: number, sys: number, rss: number) =>
  normalizeScrape(
    t,
    parsePromText(
      `# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total ${cpu}\n` +
        `process_cpu_user_seconds_total ${user}\nprocess_cpu_system_seconds_total ${sys}\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes ${rss}\n`,
    ),
  );
const client = { ttft_ms: { count: 0 }, itl_ms: { count: 0 }, tpot_ms: { count: 0 }, requests: { ok: 0 } } as unknown as Summary;

describe('resource use', () => {
  it('splits host CPU into user and system shares of the elapsed core time', () => {
    expect(cpuSplit({ user: 100, sys: 50, total: 1000 }, { user: 400, sys: 150, total: 2000 })).toEqual({ user: 30, sys: 10 });
  });

  it('reads utime and stime of /proc/PID/stat, a comm with spaces and parentheses included', () => {
    const stat = '4242 (python3 (vllm) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 12 0 100 0 0';
    expect(parseProcStat(stat)).toEqual({ user: 12.34, sys: 5.67 });
  });

  it('a remote server: CPU % = Δ process_cpu_seconds ÷ wall seconds × 100, RSS in MiB, from any engine', () => {
    const s0 = scrape(0, 10, 8, 2, 512 * 2 ** 20);
    expect(s0.counters.process_cpu_seconds).toBe(10);
    expect(s0.gauges.process_rss_bytes).toBe(512 * 2 ** 20);
    expect(s0.engine).toBe('vllm');
    const out = serverSummary([s0, scrape(2000, 13, 10.5, 2.5, 1024 * 2 ** 20)], null, client)!;
    expect(out.process).toEqual({ cpu_pct_mean: 150, cpu_user_pct_mean: 125, cpu_system_pct_mean: 25, rss_mib_mean: 768, rss_mib_max: 1024 });
    expect(resourceLines({ server: out })).toEqual(['server process (/metrics): CPU 150.0% mean (100% = one core) (user 125.0%, system 25.0%); RSS 768.0 MiB mean, 1024.0 MiB max']);
  });

  it('shows the client host with its network bytes', () => {
    const gpu = { host: { samples: 5, cpu_pct_mean: 20, cpu_pct_max: 40, cpu_user_pct_mean: 15, cpu_sys_pct_mean: 5, mem_used_mib_max: 900, net_rx_bytes: 2.5e6, net_tx_bytes: 1e6, net_rx_mb_per_s: 0.5, net_tx_mb_per_s: 0.2 } };
    expect(resourceLines({ gpu })).toEqual(['client host: CPU 20.0% mean, 40.0% max (user 15.0%, system 5.0%); memory used 900.0 MiB max; network received 2.5 MB (0.5 MB/s), sent 1.0 MB (0.2 MB/s)']);
  });
});
