// The practice's A/B flow on the engine switches (docs/sim.md#ab-static-vs-continuous-batching-spec-decode-on-and-off):
// serve --batching static vs continuous, and spec decode on vs off, each pair run alike and read with `compare`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { registerRun } from '../src/cli/run.js';
import { registerCompare } from '../src/cli/compare.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

const quiet = { log: () => {} };
interface Delta { metric: string; baseline: number; candidate: number; p: number | null; verdict: string }

async function ab(a: SimServerHandle, b: SimServerHandle, load: string[]): Promise<Map<string, Delta>> {
  const dir = tmpDir();
  for (const [s, name] of [[a, 'a'], [b, 'b']] as const) {
    const r = await runCli(registerRun, ['run', '--base-url', s.baseUrl, ...load, '--ignore-eos', '--seed', '7', '--quiet', '--no-server-metrics', '--out', join(dir, name)]);
    expect(r.code, r.err).toBe(0);
  }
  const c = await runCli(registerCompare, ['compare', join(dir, 'a'), join(dir, 'b'), '--json', '--no-html']);
  const doc = JSON.parse(c.out) as { comparisons: { points: { deltas: Delta[] }[] }[] };
  return new Map(doc.comparisons[0].points[0].deltas.map((d) => [d.metric, d]));
}

describe('A/B on the engine switches, read with compare', () => {
  let cont: SimServerHandle, stat: SimServerHandle, plain: SimServerHandle, spec: SimServerHandle;
  beforeAll(async () => {
    // The batching pair runs 5x faster than real time, so the arrival rate is 5x too: --rate 100 is 20 req/s of engine time.
    cont = await startSimServer({ batching: 'continuous', timeScale: 5 }, quiet);
    stat = await startSimServer({ batching: 'static', timeScale: 5 }, quiet);
    plain = await startSimServer({ timeScale: 10 }, quiet);
    spec = await startSimServer({ timeScale: 10, specMethod: 'eagle', specTokens: 3, specAcceptance: 0.7 }, quiet);
  });
  afterAll(async () => Promise.all([cont, stat, plain, spec].map((s) => s.close())));

  it('static batching: TTFT far higher (significant), throughput lower', async () => {
    const d = await ab(cont, stat, ['--rate', '100', '--requests', '120', '--input-tokens', '500', '--output-tokens', 'uniform:50,450']);
    const ttft = d.get('ttft_p50')!;
    expect(ttft.candidate).toBeGreaterThan(ttft.baseline * 3);
    expect(ttft.p).not.toBeNull();
    expect(ttft.p!).toBeLessThan(0.05);
    expect(ttft.verdict).toBe('regressed');
    const e2e = d.get('e2e_p50')!;
    expect(e2e.candidate).toBeGreaterThan(e2e.baseline);
  }, 180_000);

  it('spec decode: TPOT lower (significant)', async () => {
    const d = await ab(plain, spec, ['--concurrency', '4', '--requests', '24', '--input-tokens', '500', '--output-tokens', '200']);
    const tpot = d.get('tpot_p50')!;
    expect(tpot.candidate).toBeLessThan(tpot.baseline * 0.8);
    expect(tpot.p!).toBeLessThan(0.05);
    expect(tpot.verdict).toBe('improved');
  }, 180_000);
});
