// --percentiles everywhere figures are shown or written: summary.json, the terminal table, --json, stats.csv, sweep.csv and the reports.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { recordsOf } from '../src/report/results-dir.js';
import { percentile } from '../src/metrics/stats.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { renderSummary } from '../src/report/terminal.js';
import { routingSection } from '../src/report/html/routing-section.js';
import { fmt } from '../src/report/format.js';
import { num } from '../src/report/html/sections.js';
import { capture } from './io-capture.js';

let server: ScriptServer;
beforeAll(async () => {
  server = await startScriptServer(() => ({ steps: [{ at: 0, write: chatChunk({ content: 'a' }) + usageChunk(8, 1) + DONE }] }));
});
afterAll(() => server.close());

/** CSV text → header and rows as objects (the files hold no quoted commas here). */
function csv(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split('\n');
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v])));
}

const LOAD = ['--requests', '24', '--concurrency', '4', '--mix', 'short: 50% in 32 out 6; long: 50% in 96 out 12', '--quiet'];

describe('--percentiles', () => {
  it('shows p99.9 in summary.json, the terminal table, stats.csv and report.html, exact from the records', async () => {
    const out = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', ...LOAD, '--percentiles', '50,90,95,99,99.9', '--out', out], c.io)).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.percentiles).toEqual([50, 90, 95, 99, 99.9]);
    // The four fixed keys stay, the extra one is p99_9, in the run and in each class.
    for (const m of [s, s.by_class.short, s.by_class.long]) for (const k of ['p50', 'p90', 'p95', 'p99', 'p99_9']) expect(m.ttft_ms[k], k).toEqual(expect.any(Number));
    const ttfts = [...recordsOf(join(out, 'requests.jsonl'))].filter((r) => !r.warmup && r.status === 'ok').map((r) => r.ttft_ms!).sort((a, b) => a - b);
    expect(s.ttft_ms.p99_9).toBeCloseTo(percentile(ttfts, 99.9)!, 9);
    expect(c.out).toMatch(/metric\s+mean\s+stdev\s+p50\s+p90\s+p95\s+p99\s+p99\.9\s+max/);

    const rows = csv(readFileSync(join(out, 'stats.csv'), 'utf8'));
    expect(rows.map((r) => r.class)).toEqual(['all', 'long', 'short']);
    expect(Number(rows[0].ttft_p99_9_ms)).toBeCloseTo(s.ttft_ms.p99_9, 5);
    expect(Number(rows[0].e2e_p99_9_ms)).toBeCloseTo(s.e2e_ms.p99_9, 5);
    expect(Number(rows[1].ttft_p99_9_ms)).toBeCloseTo(s.by_class.long.ttft_ms.p99_9, 5);
    expect(Number(rows[0].qps)).toBeCloseTo(s.request_throughput, 5);
    expect(Number(rows[0].output_time_mean_ms)).toBeCloseTo(s.e2e_ms.mean - s.ttft_ms.mean, 5);
    // The practice's headline means sit beside the percentiles.
    expect(Number(rows[0].ttft_mean_ms)).toBeCloseTo(ttfts.reduce((a, b) => a + b, 0) / ttfts.length, 5);
    expect(Number(rows[1].e2e_mean_ms)).toBeCloseTo(s.by_class.long.e2e_ms.mean, 5);
    expect(Number(rows[2].output_tokens_mean)).toBeCloseTo(s.by_class.short.output_tokens.mean, 5);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<th>p99.9</th>');

    // The breakdown tables (class, endpoint, model, stage) show TTFT at the lowest and the tail, E2E at the tail.
    const head = /class\s+ok\s+TTFT p50\s+TTFT p99\s+TTFT p99\.9\s+TPOT p50\s+E2E p99\s+E2E p99\.9\s+out tok\/s/;
    expect(c.out).toMatch(head);
    const shortRow = new RegExp(`short\\s+${s.by_class.short.requests.ok}\\s+${[s.by_class.short.ttft_ms.p50, s.by_class.short.ttft_ms.p99, s.by_class.short.ttft_ms.p99_9].map((v: number) => fmt(v).replace('.', '\\.')).join('\\s+')}\\s`);
    expect(c.out).toMatch(shortRow);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const byClass = html.slice(html.indexOf('<h3>By class</h3>'));
    expect(byClass).toContain('<th>TTFT p99.9</th><th>TPOT p50</th><th>E2E p99</th><th>E2E p99.9</th>');
    expect(byClass).toContain(`<td>${num(s.by_class.long.e2e_ms.p99_9)}</td>`);
    // Endpoint, model and stage tables, from this run's class blocks standing in for two endpoints, models and stages.
    const split = { ...s, by_endpoint: s.by_class, by_model: s.by_class, by_stage: [0, 1].map((i) => ({ stage: i, started_at_ms: i, concurrency: 4, rate: null, metrics: i ? s.by_class.long : s.by_class.short })) };
    const text = renderSummary(split);
    expect(text).toMatch(/endpoint\s+ok\s+errors\s+TTFT p50\s+TTFT p99\s+TTFT p99\.9\s+TPOT p50\s+E2E p99\s+E2E p99\.9\s+out tok\/s/);
    expect(text).toMatch(/model\s+ok\s+errors\s+TTFT p50\s+TTFT p99\s+TTFT p99\.9\s+TPOT p50\s+E2E p99\s+E2E p99\.9\s+out tok\/s/);
    expect(text).toMatch(/stage\s+load\s+ok\s+TTFT p50\s+TTFT p99\s+TTFT p99\.9\s+E2E p99\s+E2E p99\.9\s+out tok\/s/);
    const section = routingSection(split, [], {})!.html;
    expect(section.match(/<th>TTFT p99\.9<\/th>/g)).toHaveLength(2);
    expect(section).toContain(`<td>${num(s.by_class.short.ttft_ms.p99_9)}</td>`);
    // Without --percentiles the breakdown tables keep their four latency columns.
    const plain = renderSummary({ ...split, percentiles: [50, 90, 95, 99] });
    expect(plain).toMatch(/class\s+ok\s+TTFT p50\s+TTFT p99\s+TPOT p50\s+E2E p99\s+out tok\/s/);
    expect(plain).not.toMatch(/TTFT p99\.9/);
  }, 60_000);

  it('drives --json, and `report --percentiles` rewrites summary.json and stats.csv', async () => {
    const out = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', ...LOAD, '--percentiles', '99.9,50', '--json', '--out', out], c.io)).toBe(0);
    const doc = JSON.parse(c.out);
    expect(doc.percentiles).toEqual([50, 99.9]);
    expect(doc.e2e_ms.p99_9).toEqual(expect.any(Number));
    const r = capture();
    expect(await main(['report', out, '--percentiles', '99.99'], r.io)).toBe(0);
    expect(r.out).toMatch(/\sp99\.99\s+max/);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.percentiles).toEqual([99.99]);
    expect(s.ttft_ms.p99_99).toEqual(expect.any(Number));
    expect('p99_9' in s.ttft_ms).toBe(false);
    expect(Object.keys(csv(readFileSync(join(out, 'stats.csv'), 'utf8'))[0])).toContain('ttft_p99_99_ms');
  }, 60_000);

  it('puts the extra percentiles in sweep.csv, the sweep table and the sweep report', async () => {
    const out = join(tmpDir(), 'sweep');
    const c = capture();
    expect(await main(['sweep', '--concurrency', '1,2', '--requests', '6', '--input-tokens', '32', '--output-tokens', '6', '--percentiles', '50,99.9', '--quiet', '--out', out], c.io)).toBe(0);
    const rows = csv(readFileSync(join(out, 'sweep.csv'), 'utf8'));
    expect(rows).toHaveLength(2);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    for (const [i, row] of rows.entries()) {
      const point = JSON.parse(readFileSync(join(out, doc.points[i].dir, 'summary.json'), 'utf8'));
      expect(Number(row.ttft_p99_9_ms)).toBeCloseTo(point.ttft_ms.p99_9, 5);
      expect(Number(row.itl_p99_9_ms)).toBeCloseTo(point.itl_ms.p99_9, 5);
      expect(readFileSync(join(out, doc.points[i].dir, 'stats.csv'), 'utf8')).toContain('ttft_p99_9_ms');
    }
    expect(c.out).toMatch(/TTFT p99\.9/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<th>TTFT p99.9</th>');
    // A sweep's points keep their own percentiles: report refuses to recompute them for the whole directory.
    const r = capture();
    expect(await main(['report', out, '--percentiles', '99'], r.io)).toBe(2);
    expect(r.err).toMatch(/--percentiles: .* is a sweep directory/);
    const bad = capture();
    expect(await main(['report', join(out, doc.points[0].dir), '--percentiles', '99,abc'], bad.io)).toBe(2);
    expect(bad.err).toMatch(/--percentiles: "abc" is not a percentile/);
  }, 90_000);

  it('applies to `simulate` (virtual clock) too: summary.json, stats.csv and the table', async () => {
    const out = join(tmpDir(), 'sim');
    const c = capture();
    expect(await main(['simulate', '--requests', '40', '--concurrency', '8', '--input-tokens', '64', '--output-tokens', '8', '--percentiles', '50,99.9', '--out', out, '--quiet'], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.percentiles).toEqual([50, 99.9]);
    const ttfts = [...recordsOf(join(out, 'requests.jsonl'))].filter((r) => r.status === 'ok').map((r) => r.ttft_ms!).sort((a, b) => a - b);
    expect(s.ttft_ms.p99_9).toBeCloseTo(percentile(ttfts, 99.9)!, 9);
    expect(Number(csv(readFileSync(join(out, 'stats.csv'), 'utf8'))[0].ttft_p99_9_ms)).toBeCloseTo(s.ttft_ms.p99_9, 5);
    expect(c.out).toMatch(/\sp50\s+p99\.9\s+max/);
  }, 60_000);

  it('adds the extra percentiles to `compare` (rows and --fail-on), from the baseline\'s list', async () => {
    const dirs = [join(tmpDir(), 'a'), join(tmpDir(), 'b')];
    for (const out of dirs) expect(await main(['run', '--requests', '12', '--concurrency', '4', '--input-tokens', '32', '--output-tokens', '6', '--percentiles', '50,99.9', '--quiet', '--out', out], capture().io)).toBe(0);
    const c = capture();
    expect(await main(['compare', ...dirs, '--json', '--no-html', '--threshold', '100000', '--fail-on', 'ttft_p99_9,e2e_p99_9'], c.io), c.err).toBe(0);
    const deltas = JSON.parse(c.out).comparisons[0].points[0].deltas as { metric: string; label: string; baseline: number }[];
    const base = JSON.parse(readFileSync(join(dirs[0], 'summary.json'), 'utf8'));
    const row = deltas.find((d) => d.metric === 'ttft_p99_9')!;
    expect(row.label).toBe('TTFT p99.9');
    expect(row.baseline).toBeCloseTo(base.ttft_ms.p99_9, 9);
    expect(deltas.map((d) => d.metric)).toEqual(expect.arrayContaining(['tpot_p99_9', 'itl_p99_9', 'e2e_p99_9']));
    const t = capture();
    expect(await main(['compare', ...dirs, '--no-html', '--threshold', '100000'], t.io)).toBe(0);
    expect(t.out).toMatch(/TTFT p99\.9 \(ms\)/);
    const bad = capture();
    expect(await main(['compare', ...dirs, '--no-html', '--fail-on', 'ttft_p99_99'], bad.io)).toBe(2);
    expect(bad.err).toMatch(/--fail-on: unknown metric "ttft_p99_99": the baseline has no such percentile/);

    // A vLLM result (vLLM's spelling p99.9_ttft_ms) as the baseline: its extra percentiles are rows too, against the run recomputed under vLLM's definitions.
    const vfile = join(tmpDir(), 'vllm.json');
    const vdoc = { duration: 10, completed: 12, failed: 0, request_throughput: 1.2, output_throughput: 7, total_token_throughput: 40, mean_ttft_ms: 3, median_ttft_ms: 2, p99_ttft_ms: 5, 'p99.9_ttft_ms': 6.5, 'p99.9_tpot_ms': 1.5, 'p99.9_itl_ms': 2.5, 'p99.9_e2el_ms': 9.5 };
    writeFileSync(vfile, JSON.stringify(vdoc));
    const v = capture();
    expect(await main(['compare', vfile, dirs[1], '--json', '--no-html', '--threshold', '100000', '--fail-on', 'ttft_p99_9'], v.io), v.err).toBe(0);
    const vd = JSON.parse(v.out).comparisons[0].points[0].deltas as { metric: string; baseline: number; candidate: number }[];
    const extra = Object.fromEntries(vd.filter((d) => /_p99_9$/.test(d.metric)).map((d) => [d.metric, d.baseline]));
    expect(extra).toEqual({ ttft_p99_9: 6.5, tpot_p99_9: 1.5, itl_p99_9: 2.5, e2e_p99_9: 9.5 });
    expect(vd.find((d) => d.metric === 'e2e_p99_9')!.candidate).toEqual(expect.any(Number));
    // And as the candidate, against a run asked for p99.9: the run's rows meet the file's.
    const w = capture();
    expect(await main(['compare', dirs[0], vfile, '--json', '--no-html', '--threshold', '100000'], w.io), w.err).toBe(0);
    const wd = JSON.parse(w.out).comparisons[0].points[0].deltas as { metric: string; candidate: number }[];
    expect(wd.find((d) => d.metric === 'ttft_p99_9')!.candidate).toBe(6.5);
  }, 60_000);

  for (const bad of ['100', '0', 'p99', '50,,99', '1e2']) {
    it(`refuses --percentiles ${bad} with exit 2, naming the flag, before anything is sent`, async () => {
      const c = capture();
      const before = server.bodies.length;
      expect(await main(['run', '--base-url', server.baseUrl, '--percentiles', bad, '--quiet'], c.io)).toBe(2);
      expect(c.err).toMatch(/--percentiles: "[^"]*" is not a percentile/);
      expect(server.bodies.length).toBe(before);
    });
  }
});
