// Issue 25, item 27: "tpot_p99 n/a FAILED" was printed beside 100% goodput for 1-token replies (TPOT needs 2+ tokens).
// A check on a metric no successful request has is "n/a", not judged; with no successful request at all it fails.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { registerRun } from '../src/cli/run.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

let oneToken: ScriptServer;
let failing: ScriptServer;
beforeAll(async () => {
  oneToken = await startScriptServer(() => ({
    steps: [
      { at: 0, write: chatChunk({ role: 'assistant', content: '' }) },
      { at: 2, write: chatChunk({ content: 'x' }) },
      { at: 3, write: usageChunk(8, 1) + DONE },
    ],
  }));
  failing = await startScriptServer(() => ({ status: 500, steps: [{ at: 0, write: '{"error":"down"}' }] }));
});
afterAll(async () => {
  await oneToken?.close();
  await failing?.close();
});

describe.each(['h1', 'undici'])('SLO checks on a metric with no values (transport %s)', (transport) => {
  const argv = (baseUrl: string, extra: string[] = []) => [
    'run', '--no-validate', '--base-url', baseUrl, '--requests', '4', '--concurrency', '2', '--input-tokens', '8', '--output-tokens', '1',
    '--transport', transport, '--out', tmpDir(), '--slo', 'ttft_p99=5s,tpot_p99=50ms', ...extra,
  ];

  it('1-token replies: tpot_p99 is n/a and not judged, the SLOs are met, goodput is 100%', async () => {
    const r = await runCli(registerRun, argv(oneToken.baseUrl, ['--fail-on-slo']));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/SLOs met:/);
    expect(r.out).toMatch(/tpot_p99 n\/a <= 50\.00 ms {2}not judged: no successful request has a TPOT \(it needs 2\+ output tokens\)/);
    expect(r.out).not.toMatch(/FAILED/);
    expect(r.out).toMatch(/100\.0% of requests good/);
    const j = JSON.parse((await runCli(registerRun, [...argv(oneToken.baseUrl), '--json'])).out);
    expect(j.slo.passed).toBe(true);
    expect(j.slo.checks.find((c: { name: string }) => c.name === 'tpot_p99')).toMatchObject({ actual: null, passed: true, status: 'n/a' });
    expect(j.slo.checks.find((c: { name: string }) => c.name === 'ttft_p99')).toMatchObject({ passed: true, status: 'ok' });
  });

  it('no successful request at all: a check with no value fails', async () => {
    const r = await runCli(registerRun, [...argv(failing.baseUrl), '--json']);
    const j = JSON.parse(r.out);
    expect(j.requests.ok).toBe(0);
    expect(j.slo.passed).toBe(false);
    expect(j.slo.checks.find((c: { name: string }) => c.name === 'ttft_p99')).toMatchObject({ actual: null, passed: false, status: 'failed' });
  });
});
