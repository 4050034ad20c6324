// The client's open-file limit is checked against the planned connections before any request, with the fix named (`ulimit -n`).
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { checkFdLimit, FD_FLOOR, FD_RESERVE } from '../src/scheduler/fd-limit.js';
import { prewarmCount } from '../src/backends/prewarm.js';
import { plannedLoad } from '../src/drivers/real.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');

/** The built CLI under `ulimit -n N` (soft and hard: Node cannot raise it back). */
function cliWithLimit(limit: number, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    execFile('sh', ['-c', `ulimit -n ${limit} && exec ${quoted}`], { timeout: 60_000 }, (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }));
  });
}

describe('open-file limit against the planned connections', () => {
  it('a known peak above limit − reserve is a problem naming the flag, the numbers and the fix', () => {
    expect(checkFdLimit({ inFlight: 100, flag: '--concurrency' }, 1024)).toEqual({ prewarm: 0 });
    const r = checkFdLimit({ inFlight: 900, flag: '--concurrency' }, 1024);
    expect(r.problem).toMatch(/^--concurrency: 900 requests in flight need 900 sockets, but this process may open 1024 files \(ulimit -n\)/);
    expect(r.problem).toContain(`at most ${1024 - FD_RESERVE} requests fit`);
    expect(r.problem).toContain('ulimit -n 65536');
    expect(checkFdLimit({ inFlight: 900, flag: '--stages' }, 1024).problem).toMatch(/^--stages: /);
    // Unknown or unlimited: nothing to say.
    expect(checkFdLimit({ inFlight: 1e5 }, null)).toEqual({ prewarm: 0 });
    // Open loop without a cap: Little's law, a notice only when rate × timeout could pass the budget.
    expect(checkFdLimit({ rate: 10, timeoutS: 60 }, 1024)).toEqual({ prewarm: 0 });
    const n = checkFdLimit({ rate: 100, timeoutS: 600 }, 1024);
    expect(n.problem).toBeUndefined();
    expect(n.notice).toContain('if requests took over 7.68 s');
    expect(n.notice).toContain('--concurrency 768');
  });

  it('the prewarm is counted: never more than the requests sent, cut to the budget with a notice, refused below the floor', () => {
    // Issue 32 item 24: --rate 600 planned min(1024, 1200) connections whatever --requests and ulimit -n said.
    expect(prewarmCount('auto', { rate: 600 })).toBe(1024);
    // A rate capped by --concurrency prewarms up to that concurrency, above the 1,024 default.
    expect(prewarmCount('auto', { rate: 2000, concurrency: 2000 })).toBe(2000);
    expect(prewarmCount('auto', { rate: 2000, concurrency: 2000, requests: 1500 })).toBe(1500);
    expect(prewarmCount('auto', { rate: 600, requests: 10 })).toBe(10);
    expect(prewarmCount(500, { requests: 12 })).toBe(12);
    expect(prewarmCount('auto', { concurrency: 8, requests: 3 })).toBe(3);
    expect(prewarmCount('off', { rate: 600, requests: 10 })).toBe(0);
    // Fits: the planned count, nothing said.
    expect(checkFdLimit({ rate: 600, timeoutS: 1, prewarm: 10 }, 1024)).toEqual({ prewarm: 10 });
    // Over the budget: cut to limit − reserve, said with the fix, the run goes on.
    const cut = checkFdLimit({ rate: 600, timeoutS: 1, prewarm: 1024 }, 1024);
    expect(cut.problem).toBeUndefined();
    expect(cut.prewarm).toBe(1024 - FD_RESERVE);
    expect(cut.notice).toMatch(/^open files: prewarming 768 connections, not the 1024 planned, since this process may open 1024 files \(ulimit -n\)/);
    expect(cut.notice).toContain('ulimit -n 65536');
    // Below the run's own needs plus one socket: refused, the fix named.
    const low = checkFdLimit({ rate: 10, timeoutS: 1, prewarm: 20 }, FD_FLOOR);
    expect(low.problem).toMatch(new RegExp(`^open files: this process may open ${FD_FLOOR} files \\(ulimit -n\\), but a run needs about ${FD_FLOOR} for itself`));
    expect(low.problem).toContain('ulimit -n 65536');
    const floor = checkFdLimit({ rate: 10, timeoutS: 1, prewarm: 20 }, FD_FLOOR + 1);
    expect(floor.problem).toBeUndefined();
    expect(floor.prewarm).toBe(1);
    expect(floor.notice).toContain('prewarming 1 connections, not the 20 planned');
  });

  it('plans from the config: --concurrency, the peak of --stages, a shard\'s share, or an open loop\'s rate', () => {
    const base = { timeout: 600 } as Parameters<typeof plannedLoad>[0];
    expect(plannedLoad({ ...base, concurrency: 64 })).toEqual({ inFlight: 64, flag: '--concurrency' });
    expect(plannedLoad({ ...base, stages: '10s:20,30s:300,10s:0' } as typeof base)).toEqual({ inFlight: 300, flag: '--stages' });
    expect(plannedLoad({ ...base, concurrency: 64, shard: '0/4' } as typeof base)).toEqual({ inFlight: 16, flag: '--concurrency' });
    expect(plannedLoad({ ...base, rate: 20 })).toEqual({ rate: 20, timeoutS: 600 });
    expect(plannedLoad({ ...base, rate: 20, concurrency: 8 })).toEqual({ inFlight: 8, flag: '--concurrency' });
  });

  it('under ulimit -n 300, --concurrency 100 exits 2 before anything is sent; 40 runs', async () => {
    let connections = 0;
    const server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const out = join(tmpDir(), 'run');
      const r = await cliWithLimit(300, ['run', '--base-url', url, '--concurrency', '100', '--requests', '10', '--out', out]);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        'tokenflood: --concurrency: 100 requests in flight need 100 sockets, but this process may open 300 files (ulimit -n) and keeps 256 for results files and telemetry, so at most 44 requests fit: ' +
          'raise it before the run with `ulimit -n 65536` (up to the hard limit, `ulimit -Hn`; for a service LimitNOFILE= or /etc/security/limits.conf), lower --concurrency, or split the load over processes (--shard)\n',
      );
      expect(connections).toBe(0);
      expect(existsSync(out)).toBe(false);
      // Below the run's own descriptors plus one socket: refused whatever the load, nothing sent.
      const floor = await cliWithLimit(FD_FLOOR - 4, ['run', '--base-url', url, '--rate', '600', '--requests', '10', '--out', out]);
      expect(floor.code).toBe(2);
      expect(floor.err).toContain(`open files: this process may open ${FD_FLOOR - 4} files (ulimit -n), but a run needs about ${FD_FLOOR} for itself`);
      expect(connections).toBe(0);
      expect(existsSync(out)).toBe(false);
    } finally {
      server.close();
    }
    // Issue 32 item 24: an open loop's auto prewarm (1024 connections at --rate 1000) ran the process out of
    // descriptors (internal error, EMFILE on server_metrics.jsonl, exit 1). Now: capped by --requests and the limit.
    for (const [limit, requests] of [[256, 10], [300, 100]] as const) {
      const dir = join(tmpDir(), `rate-${limit}`);
      const r = await cliWithLimit(limit, ['run', '--rate', '1000', '--requests', String(requests), '--input-tokens', '16', '--output-tokens', '4', '--sim-time-scale', '100', '--quiet', '--json', '--out', dir]);
      expect(r.err).not.toContain('internal error');
      expect(r.code, r.err).toBe(0);
      expect(readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n')).toHaveLength(requests);
      expect(existsSync(join(dir, 'server_metrics.jsonl'))).toBe(true);
      const prewarmed = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).connections.prewarmed;
      const budget = Math.max(1, limit - FD_RESERVE);
      expect(prewarmed).toBe(Math.min(requests, budget));
      expect(r.err).toContain(`prewarming ${budget} connections, not the ${requests} planned`);
    }
    const ok = await cliWithLimit(300, ['run', '--concurrency', '40', '--requests', '40', '--input-tokens', '16', '--output-tokens', '4', '--sim-time-scale', '100', '--no-server-metrics', '--quiet', '--out', join(tmpDir(), 'ok')]);
    expect(ok.code, ok.err).toBe(0);
  }, 90_000);
});
