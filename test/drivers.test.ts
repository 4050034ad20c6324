// One lifecycle, two drivers: the same workloads through run() (real driver, the sim server) and simulate() (virtual driver) give the same files and fields.
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { simulate, SIM_ENGINE_KEYS } from '../src/simulate.js';
import { startSimServer } from '../src/sim/server.js';
import { rebuildSummary } from '../src/cli/report.js';
import { tmpDir } from './helpers.js';

/** Every key path of a JSON value, arrays by their first element (values differ between drivers; the shape must not). */
function shape(v: unknown, at = ''): string[] {
  if (Array.isArray(v)) return v.length ? shape(v[0], `${at}[]`) : [`${at}[]`];
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [`${at}.${k}`, ...shape(x, `${at}.${k}`)]);
  return [];
}
const lines = (dir: string) => readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const json = (dir: string, f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
/** run.json fields only one driver has: where the requests went and what measured the client. */
const ENGINE_KEYS = SIM_ENGINE_KEYS.map((k) => k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)).join('|');
const DRIVER_ONLY = new RegExp(`^\\.(gpu_metrics|simulated|engine|simulation|embedded_server_isolation|workers|transport|proxy|client_health|in_flight_at_stop|connections|config\\.(base_url|${ENGINE_KEYS}))(\\.|\\[|$)`);
/** summary.json paths that follow from those (the client-health block, and run.* copies of run.json). */
const SUMMARY_DRIVER_ONLY = new RegExp(`^\\.(client|gpu|run\\.(gpu_metrics|simulated|engine|simulation|embedded_server_isolation|workers|transport|proxy|client_health|in_flight_at_stop|connections|config\\.(base_url|${ENGINE_KEYS})))(\\.|\\[|$)`);

function dataFiles() {
  const dir = tmpDir();
  const convs = Array.from({ length: 4 }, (_, c) => ({
    conversations: [0, 1].flatMap((t) => [{ from: 'human', value: `conversation ${c}, turn ${t}: tell me more` }, { from: 'gpt', value: 'recorded answer' }]),
  }));
  const multi = join(dir, 'multi.json');
  writeFileSync(multi, JSON.stringify(convs));
  const trace = join(dir, 'trace.jsonl');
  writeFileSync(trace, Array.from({ length: 8 }, (_, i) => JSON.stringify({ timestamp: 1000 + i * 50, input_tokens: 40 + i, output_tokens: 6 })).join('\n'));
  return { multi, trace };
}

describe('the same workloads through both drivers', () => {
  const { multi, trace } = dataFiles();
  const cases: [string, Record<string, unknown>][] = [
    ['fixed', { requests: 12, concurrency: 4, inputTokens: 64, outputTokens: 8 }],
    ['mix', { requests: 12, concurrency: 4, mix: 'short: 50% in 32 out 4; long: 50% in 200 out 12' }],
    ['cache A/B', { requests: 12, concurrency: 3, cacheAb: true, inputTokens: 48, outputTokens: 4, prefixTokens: 64 }],
    ['replay', { replay: trace, concurrency: 8 }],
    ['multi-turn', { dataset: multi, datasetMode: 'once', concurrency: 2, outputTokens: 6, thinkTime: '10ms' }],
    ['open loop, warmup, non-streamed', { requests: 10, warmup: 2, rate: 40, inputTokens: 32, outputTokens: 5, stream: false }],
  ];
  it.each(cases)('%s: same files, same record and summary fields, same workload description', async (_name, load) => {
    const server = await startSimServer({ timeScale: 20 });
    let realDir: string;
    try {
      // Server metrics (scraped here, the engine model's under simulate: test/simulate-timeline.test.ts) are left out on both sides to compare the rest.
      realDir = (await run({ validate: false, ...load, baseUrl: server.baseUrl, out: tmpDir(), quiet: true, serverMetrics: false })).outDir;
    } finally {
      await server.close();
    }
    const sim = await simulate({ ...load, out: tmpDir(), quiet: true, serverMetrics: false } as never);
    const simDir = sim.outDir;
    // The host sampler (gpu_metrics.jsonl, summary.gpu.host) measures the client machine of a real run: no host under simulate.
    const hostOnly = (f: string) => f !== 'gpu_metrics.jsonl';
    expect(readdirSync(simDir).sort()).toEqual(readdirSync(realDir).filter(hostOnly).sort());
    expect(readdirSync(simDir)).toEqual(expect.arrayContaining(['requests.jsonl', 'run.json', 'summary.json', 'report.html']));

    const [real, virt] = [lines(realDir), lines(simDir)];
    expect(virt.length).toBe(real.length);
    const ids = (rs: Record<string, unknown>[]) => rs.map((r) => `${r.id}/${r.attempt}/${r.warmup}/${r.class}`).sort();
    expect(ids(virt)).toEqual(ids(real));
    expect(virt.every((r) => r.status === 'ok')).toBe(true);
    // Bytes off the wire (response_bytes, response MB/s) exist only where there is a wire: the engine model sends no body.
    const wireOnly = (k: string) => k !== 'response_bytes';
    expect(Object.keys(virt[0])).toEqual(Object.keys(real[0]).filter(wireOnly));
    // Token counts follow the workload, not the driver (the engine model and the sim server agree on them).
    const tokens = (rs: Record<string, unknown>[]) => rs.map((r) => `${r.id}:${r.input_tokens}`).sort();
    if (!load.dataset) expect(tokens(virt)).toEqual(tokens(real));

    const [rRun, vRun] = [json(realDir, 'run.json'), json(simDir, 'run.json')];
    expect(shape(vRun).filter((p) => !DRIVER_ONLY.test(p)).sort()).toEqual(shape(rRun).filter((p) => !DRIVER_ONLY.test(p)).sort());
    expect(vRun.simulated).toBe(true);
    expect(vRun.executor).toEqual(rRun.executor);
    const describe = (w: unknown) => JSON.parse(JSON.stringify(w)) as Record<string, unknown>;
    expect(Object.keys(describe(vRun.workload)).sort()).toEqual(Object.keys(describe(rRun.workload)).sort());
    expect((vRun.workload as { kind: string }).kind).toBe((rRun.workload as { kind: string }).kind);

    const [rSum, vSum] = [json(realDir, 'summary.json'), json(simDir, 'summary.json')];
    // Response bytes (and their MB/s) are counted off the wire: a real run only.
    const compared = (p: string) => !SUMMARY_DRIVER_ONLY.test(p) && !/\.response_(bytes|mb_per_s)$/.test(p);
    expect(shape(vSum).filter(compared).sort()).toEqual(shape(rSum).filter(compared).sort());
    // Both summaries are what `report` recomputes from the files.
    for (const d of [realDir, simDir]) expect(JSON.parse(JSON.stringify(rebuildSummary(d).summary))).toEqual(json(d, 'summary.json'));
  });
});
