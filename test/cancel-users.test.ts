// Request cancellation (--cancel-after, --cancel-rate) and the user-centric executor (--users, --user-rate) against the sim server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/run.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { cancelDraws } from '../src/lifecycle/cancel-plan.js';
import { renderSummary } from '../src/report/terminal.js';
import { registerRun } from '../src/cli/run.js';
import { registerSweep } from '../src/cli/sweep.js';
import { registerSimulate } from '../src/cli/simulate.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir, within } from './helpers.js';

let sim: SimServerHandle;
beforeAll(async () => {
  sim = await startSimServer({}, { log: () => {} });
});
afterAll(async () => {
  await sim.close();
});

/** One series of the sim's /metrics (summed over its label sets). */
async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(new URL('/metrics', sim.baseUrl))).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && l.includes(labels))
    .reduce((a, l) => a + Number(l.split(' ').at(-1)), 0);
}

/** Poll until `f` returns true (the sim handles a socket's close on its own schedule), at most `ms`. */
async function eventually(f: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await f()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('--cancel-after and --cancel-rate', () => {
  for (const workers of [1, 2]) {
    it(`--cancel-after 200ms with long outputs cancels every request ≈200 ms after send, and the sim frees them (--workers ${workers})`, async () => {
      const abortedBefore = await metric('vllm:request_success_total', 'finished_reason="abort"');
      const res = await run({ baseUrl: sim.baseUrl, requests: 8, concurrency: 4, inputTokens: 64, outputTokens: 2000, ignoreEos: true, cancelAfter: '200ms', workers, out: tmpDir(), quiet: true });
      expect(res.records).toHaveLength(8);
      for (const r of res.records) {
        expect([r.status, r.code]).toEqual(['cancelled', 'E_CANCELLED_BY_CLIENT']);
        // Timers fire a little late on a loaded machine; never early.
        expect(within(r.end_ms, 195, 800), `end_ms ${r.end_ms}`).toBe(true);
        expect(r.error).toMatch(/^cancelled by the client \d+ ms after send/);
      }
      // What each had received by then is kept: the sim streams from the first ms, so some tokens arrived.
      expect(res.records.filter((r) => (r.output_tokens ?? 0) > 0).length).toBeGreaterThan(0);
      const s = res.summary;
      expect(s.requests).toMatchObject({ total: 8, ok: 0, failed: 0, cancelled: 8 });
      expect(s.cancellation).toMatchObject({ cancelled: 8, rate: 1 });
      expect(within(s.cancellation!.cancel_after_ms.mean, 195, 800)).toBe(true);
      // Excluded from the latency statistics of ok requests.
      expect(s.ttft_ms.count).toBe(0);
      expect(s.e2e_ms.count).toBe(0);
      expect(renderSummary(s)).toMatch(/cancelled by the client \(--cancel-after\/--cancel-rate\): 8 \(100(\.0)?%\)/);
      // The server section saw the engine drop them (the last few may land after the final scrape).
      expect(s.server!.aborted_requests).toBeGreaterThan(0);
      expect(renderSummary(s)).toMatch(/\d+ aborted \(client gone\)/);
      // The sim aborted the generations on the disconnects: nothing left running, each counted as an abort.
      expect(await eventually(async () => (await metric('vllm:num_requests_running')) === 0)).toBe(true);
      expect(await eventually(async () => (await metric('vllm:request_success_total', 'finished_reason="abort"')) - abortedBefore === 8)).toBe(true);
    });
  }

  it('--backend websocket: the socket is closed ≈200 ms after the request went out, and the sim drops the generation', async () => {
    const res = await run({ baseUrl: sim.baseUrl, backend: 'websocket', requests: 4, concurrency: 2, inputTokens: 64, outputTokens: 2000, ignoreEos: true, cancelAfter: 0.2, out: tmpDir(), quiet: true });
    for (const r of res.records) {
      expect([r.status, r.code]).toEqual(['cancelled', 'E_CANCELLED_BY_CLIENT']);
      expect(within(r.end_ms, 195, 800), `end_ms ${r.end_ms}`).toBe(true);
    }
    expect(await eventually(async () => (await metric('vllm:num_requests_running')) === 0)).toBe(true);
  });

  it('--cancel-rate 50% cancels the share its seed draws: the exact requests for --dataset-seed 7, about half', async () => {
    const n = 24;
    const expected = Array.from({ length: n }, (_, i) => i).filter((i) => cancelDraws(7, i)[0] < 0.5);
    expect(within(expected.length, 6, 18)).toBe(true);
    const res = await run({ baseUrl: sim.baseUrl, requests: n, concurrency: 12, inputTokens: 32, outputTokens: 80, ignoreEos: true, cancelRate: '50%', cancelAfter: 0.2, datasetSeed: 7, out: tmpDir(), quiet: true });
    const cancelled = res.records.filter((r) => r.code === 'E_CANCELLED_BY_CLIENT').map((r) => r.id).sort((a, b) => a - b);
    expect(cancelled).toEqual(expected);
    expect(res.records.filter((r) => r.status === 'ok').length).toBe(n - expected.length);
    expect(res.summary.cancellation!.cancelled).toBe(expected.length);
    expect(res.summary.cancellation!.rate).toBeCloseTo(expected.length / n, 3);
    // The latency statistics are over the ok requests alone.
    expect(res.summary.e2e_ms.count).toBe(n - expected.length);
  });

  it('--cancel-rate alone cancels at a uniform point of the expected life (mean ok E2E so far): never later than the longest ok request', async () => {
    const res = await run({ baseUrl: sim.baseUrl, requests: 16, concurrency: 4, inputTokens: 32, outputTokens: 60, ignoreEos: true, cancelRate: 1, warmup: 2, datasetSeed: 3, out: tmpDir(), quiet: true });
    const measured = res.records.filter((r) => !r.warmup);
    // The warmup requests are never cancelled (they warm, and their E2E is the first expected life).
    expect(res.records.filter((r) => r.warmup).every((r) => r.status === 'ok')).toBe(true);
    expect(measured.every((r) => r.status === 'cancelled' || r.status === 'ok')).toBe(true);
    const cancelled = measured.filter((r) => r.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(8);
    const longestOk = Math.max(...res.records.filter((r) => r.status === 'ok').map((r) => r.e2e_ms!));
    for (const r of cancelled) expect(r.end_ms!).toBeLessThan(longestOk + 150);
  });

  it('refuses what cannot work, exit 2, nothing sent', async () => {
    const r = await runCli(registerRun, ['run', '--base-url', 'http://127.0.0.1:9', '--cancel-after', '700s', '--requests', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--cancel-after: 700 s is not before --timeout (600 s)');
    const bad = await runCli(registerRun, ['run', '--base-url', 'http://127.0.0.1:9', '--cancel-rate', '150%', '--requests', '1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--cancel-rate');
    const sim = await runCli(registerSimulate, ['simulate', '--cancel-after', '1s', '--requests', '1', '--out', tmpDir()]);
    expect(sim.code).toBe(2);
    expect(sim.err).toContain('--cancel-after: simulate does not model cancelled requests');
  });
});

describe('--users and --user-rate (user-centric executor)', () => {
  it('4 users at 2 req/s for 3 s send ~24 requests, each user\'s sends ≥ 1/R apart, starts staggered', async () => {
    const res = await run({ baseUrl: sim.baseUrl, users: 4, userRate: 2, duration: 3, inputTokens: 32, outputTokens: 8, out: tmpDir(), quiet: true });
    const recs = res.records;
    expect(within(recs.length, 22, 25), `${recs.length} requests`).toBe(true);
    expect(recs.every((r) => r.status === 'ok')).toBe(true);
    expect(res.summary.run.executor).toEqual({ kind: 'user-centric', users: 4, user_rate: 2, rate: 8 });
    const firsts: number[] = [];
    for (let u = 0; u < 4; u++) {
      const sends = recs.filter((r) => r.user === u).map((r) => r.scheduled_at_ms).sort((a, b) => a - b);
      const sent = recs.filter((r) => r.user === u).map((r) => r.sent_at_ms).sort((a, b) => a - b);
      expect(within(sends.length, 5, 7)).toBe(true);
      firsts.push(sends[0]);
      // Scheduled exactly 1/R apart (the requests end well within the gap); sent within timer tolerance of it.
      for (let i = 1; i < sends.length; i++) expect(sends[i] - sends[i - 1]).toBeCloseTo(500, 3);
      for (let i = 1; i < sent.length; i++) expect(sent[i] - sent[i - 1]).toBeGreaterThan(450);
    }
    // Users start one gap / N apart: 0, 125, 250, 375 ms after the first.
    expect(firsts.map((t) => Math.round(t - firsts[0]))).toEqual([0, 125, 250, 375]);
    const u = res.summary.users!;
    expect(u).toMatchObject({ users: 4, target_rate: 8 });
    expect(within(u.achieved_rate, 7, 9)).toBe(true);
    expect(u.send_gap_ms!.min).toBeGreaterThan(450);
    expect(renderSummary(res.summary)).toMatch(/users: 8(\.0+)? req\/s intended \(4 users × 2 req\/s\), [\d.]+ req\/s achieved/);
  });

  it('refuses --users with --rate, --concurrency or --stages in one message, and either flag alone, exit 2', async () => {
    const r = await runCli(registerRun, ['run', '--base-url', 'http://127.0.0.1:9', '--users', '4', '--user-rate', '2', '--rate', '5', '--concurrency', '3', '--requests', '1']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--users: the users set the load (N × --user-rate requests per second); drop --rate, --concurrency');
    const s = await runCli(registerRun, ['run', '--base-url', 'http://127.0.0.1:9', '--users', '4', '--user-rate', '2', '--stages', '10s:4', '--requests', '1']);
    expect(s.code).toBe(2);
    expect(s.err).toContain('drop --stages');
    const alone = await runCli(registerRun, ['run', '--base-url', 'http://127.0.0.1:9', '--user-rate', '2', '--requests', '1']);
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--user-rate: needs --users N');
    const sweep = await runCli(registerSweep, ['sweep', '--concurrency', '1,2', '--users', '2', '--user-rate', '1', '--requests', '2', '--out', tmpDir()]);
    expect(sweep.code).toBe(2);
    expect(sweep.err).toContain("--users: a sweep sets each point's load");
    expect(sweep.err).not.toContain('drop --concurrency');
  });

  it('simulate runs the same executor on the virtual clock: exactly 24 requests, each user 500 ms apart', async () => {
    const out = tmpDir();
    const r = await runCli(registerSimulate, ['simulate', '--users', '4', '--user-rate', '2', '--duration', '3', '--output-tokens', '16', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.out);
    expect(s.requests.total).toBe(24);
    expect(s.users).toMatchObject({ users: 4, target_rate: 8, requests_per_user: { min: 6, max: 6 }, send_gap_ms: { min: 500, mean: 500 } });
  });
});
