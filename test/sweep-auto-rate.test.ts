// Open-loop `sweep --auto`: the profile (synchronous probe, throughput run, rates between) and the SLO search over request rates.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { registerSweep } from '../src/cli/sweep.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { renderSweep } from '../src/sweep/terminal.js';
import type { SweepDoc } from '../src/report/sweep-model.js';
import type { RateProfileReport, SloSearchReport } from '../src/report/auto-search-model.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';
import { num } from '../src/report/html/sections.js';

let sim: SimServerHandle;
beforeAll(async () => {
  sim = await startSimServer({ maxNumSeqs: 8, timeScale: 2 });
});
afterAll(async () => {
  await sim?.close();
});

const common = () => ['sweep', '--base-url', sim.baseUrl, '--input-tokens', '32', '--output-tokens', '32', '--duration', '400ms', '--json', '--quiet'];
const runJson = (d: string, run: string) => JSON.parse(readFileSync(join(d, run, 'run.json'), 'utf8'));

describe('sweep --auto --auto-mode rate', () => {
  it('probes one stream, then the maximal rate, then runs --auto-rates open-loop rates evenly between them', async () => {
    const out = join(tmpDir(), 'profile');
    const r = await runCli(registerSweep, [...common(), '--auto', '--auto-mode', 'rate', '--auto-rates', '3', '--max-concurrency', '16', '--arrival', 'constant', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as SweepDoc;
    const prof = doc.auto_search?.['32x32'] as RateProfileReport;
    expect(doc.mode).toBe('rate');
    expect(prof.goal).toBe('profile');
    expect(prof.runs).toBe(5);
    // The probes first, each a closed-loop point with its role; then the rates, open loop.
    expect(doc.points.map((p) => [p.mode, p.auto_role])).toEqual([
      ['concurrency', 'synchronous'],
      ['concurrency', 'throughput'],
      ['rate', null],
      ['rate', null],
      ['rate', null],
    ]);
    const [sync, top, ...rates] = doc.points;
    expect([sync.load, top.load]).toEqual([1, 16]);
    expect(prof.synchronous_rate).toBe(sync.request_throughput);
    expect(prof.max_rate).toBe(top.request_throughput);
    // 8 slots against one stream: the throughput run reaches several times the synchronous rate.
    expect(top.request_throughput, `${sync.request_throughput} vs ${top.request_throughput}`).toBeGreaterThan(2 * sync.request_throughput);
    const step = (prof.max_rate! - prof.synchronous_rate!) / 4;
    expect(prof.rates).toEqual(rates.map((p) => p.load));
    prof.rates.forEach((x, i) => expect(Math.abs(x - (prof.synchronous_rate! + (i + 1) * step))).toBeLessThanOrEqual(0.005 * x));
    for (const p of rates) {
      const meta = runJson(out, p.dir);
      expect(meta.config.rate).toBe(p.load);
      expect(meta.config.arrival).toBe('constant');
    }
    expect(runJson(out, top.dir).config.concurrency).toBe(16);
    // The insights read the rates only; sweep.csv marks the probes' role.
    expect(doc.insights[0].levels).toEqual(prof.rates);
    const csv = readFileSync(join(out, 'sweep.csv'), 'utf8').trim().split('\n');
    const role = csv[0].split(',').indexOf('auto_role');
    expect(csv.slice(1).map((l) => l.split(',')[role])).toEqual(['synchronous', 'throughput', '', '', '']);
    const text = renderSweep(doc);
    expect(text).toMatch(/^c1 synchronous\s/m);
    expect(text).toMatch(/^c16 throughput\s/m);
    expect(text).toContain(`--auto (32x32): open-loop profile: synchronous probe (concurrency 1) `);
    expect(text).toContain(`3 rates between them (${prof.rates.join(', ')} req/s); 5 runs`);
    // report.html lists the profile's runs in order, the probes with their role.
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('Auto search, run by run'));
    expect(section).toContain(`Open-loop profile: synchronous rate ${num(prof.synchronous_rate)} req/s, throughput run ${num(prof.max_rate)} req/s`);
    expect(section).toContain(`<tr><td>1</td><td>${prof.steps[0].point}</td><td>concurrency 1</td><td>synchronous</td>`);
    expect(section).toContain(`<tr><td>2</td><td>${prof.steps[1].point}</td><td>concurrency 16</td><td>throughput</td>`);
    expect(section.match(/<tr><td>\d<\/td>/g)).toHaveLength(5);
  }, 60_000);

  it('with --slo, brackets and bisects request rates from the synchronous rate, within --auto-max-runs', async () => {
    const out = join(tmpDir(), 'rate-slo');
    const r = await runCli(registerSweep, [...common(), '--auto', '--auto-mode', 'rate', '--slo', 'ttft_p99=90ms', '--auto-max-runs', '6', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out) as SweepDoc;
    const s = doc.auto_search?.['32x32'] as SloSearchReport;
    expect(s.goal).toBe('slo');
    expect(s.mode).toBe('rate');
    expect(s.runs).toBe(doc.points.length);
    expect(s.runs).toBeLessThanOrEqual(6);
    expect(s.precision_target).toEqual({ kind: 'relative', value: 0.05 });
    const [probe, ...search] = s.steps;
    expect([probe.mode, probe.load, probe.role]).toEqual(['concurrency', 1, 'synchronous']);
    // The first rate is the probe's request rate (3 significant digits); each next one doubles, halves or bisects.
    expect(search[0].load).toBe(Number(doc.points[0].request_throughput.toPrecision(3)));
    const [pass, fail] = s.bracket;
    for (const step of search) {
      const row = doc.points.find((p) => p.name === step.point)!;
      expect([row.mode, row.rate]).toEqual(['rate', step.load]);
      expect(step.passed).toBe(row.slo_passed === true && row.error_rate <= doc.max_error_rate && row.ok > 0);
      // The bracket is the highest passing and the lowest failing rate measured.
      if (step.passed) expect(step.load).toBeLessThanOrEqual(pass!);
      else expect(step.load).toBeGreaterThanOrEqual(fail!);
    }
    if (pass !== null && fail !== null) {
      expect(s.precision_reached).toEqual({ absolute: fail - pass, relative: (fail - pass) / pass });
      expect(s.converged).toBe(s.precision_reached!.relative! <= 0.05 + 1e-9);
    }
    expect(['precision', 'max_runs', 'min_load_fails']).toContain(s.stop);
    expect(renderSweep(doc)).toMatch(/--auto --slo \(32x32\) runs, in order:\n {4}1\. concurrency 1 \(synchronous probe\): (pass|FAIL)/);
  }, 60_000);

  it('refuses --auto flags that would do nothing: exit 2, one message per flag, nothing sent', async () => {
    let hits = 0;
    const server = createServer((_req, res) => (hits++, res.end()));
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const r = await runCli(registerSweep, ['sweep', '--base-url', url, '--auto', '--slo', 'ttft_p99=1s', '--auto-rates', '3', '--out', join(tmpDir(), 'bad')]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('--auto-rates: only for the open-loop profile (--auto --auto-mode rate without --slo)');
      expect(hits).toBe(0);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});
