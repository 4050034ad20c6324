// report.html "Sessions and turns": per-turn latency and the cache ceiling beside cached tokens, rendered in headless Chromium, session ids escaped.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { main } from '../src/cli/main.js';
import { writeRunReport } from '../src/report/html/run-report.js';
import { sessionTimelineChart } from '../src/report/html/session-section.js';
import { recordLine } from '../src/metrics/jsonl.js';
import { checkPage, hasChromium, launch, NO_CHROMIUM } from './fixtures/browser.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { sessionRecords } from './fixtures/session-records.js';

const EVIL_SESSION = '<img src=x onerror="window.__pwned=7">sess';

let browser: Browser | undefined;
beforeAll(async () => {
  if (hasChromium) browser = await launch();
  else console.warn(NO_CHROMIUM);
});
afterAll(async () => {
  await browser?.close();
});

describe('report.html: sessions and turns', () => {
  it('trace-replay records: per-turn latency and ceiling-vs-cached charts draw, the table gives the sums, session ids are text', async () => {
    const dir = tmpDir();
    const recs = sessionRecords().map((r) => (r.session === 'b' ? { ...r, session: EVIL_SESSION } : r));
    writeFileSync(join(dir, 'requests.jsonl'), recs.map((r) => recordLine(r)).join(''));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ model: 'm', target_url: 'http://127.0.0.1:1' }));
    const path = writeRunReport(dir);
    const html = readFileSync(path, 'utf8');
    expect(html).toContain('Sessions and turns');
    for (const id of ['c-turn-latency', 'c-turn-reuse', 'c-session-timeline']) expect(html).toContain(`id="${id}"`);
    expect(html).not.toContain('<img src=x');
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, path);
    expect(page.errors).toEqual([]);
    expect(page.network).toEqual([]);
    expect(page.pwned).toBeUndefined();
    expect(page.text).toContain(EVIL_SESSION);
    // 19 turns of session a at ceiling 900 / cached 450, b: 400/400 and 500/100.
    const ceiling = 19 * 900 + 900;
    const cached = 19 * 450 + 500;
    expect(page.text).toContain(`cached prompt tokens against a cache ceiling of ${ceiling.toLocaleString('en-US')}`);
    expect(page.text).toContain(`${((cached / ceiling) * 100).toFixed(1)}% of the ceiling`);
    expect(page.text).toMatch(/2 sessions; duration \(first send to last token\) p50 [\d.]+ s, p90 [\d.]+ s, max 1\.94 s; main-agent turns per session p50 11\.0, max 20; 1 subagent in 1 session; join wait 0\.07 s in all over 1 turn/);
    expect(page.text).toMatch(/16\+\t4\t4\t/);
    expect(page.text).toMatch(/\n2\t1\t1\t.*\t1,002\t900\t450\t89\.8%\t50\.0%\n/);
    // The 9 charts of every run, the errors chart (one timeout) and the three of this section.
    expect(page.charts).toBe(13);
    expect(page.drawn).toBe(page.canvases);
  }, 30_000);

  it('the session timeline: tool wait after the same agent\'s previous turn, then think, join wait, first token and decoding, on the session\'s clock', () => {
    const chart = sessionTimelineChart(sessionRecords(), 'b') as { yAxis: { data: string[] }; series: { name: string; data: number[] }[] };
    // In send order: main #0 (sent 50), b.sub1 #0 (120), main #1 (300: join 75, tool 20), b.sub1 #1 (400, tool 5; timed out).
    expect(chart.yAxis.data).toEqual(['main #0', 'b.sub1 #0', 'main #1', 'b.sub1 #1']);
    const seg = (name: string) => chart.series.find((x) => x.name === name)!.data;
    // main #1: its predecessor main #0 ended at 50 + 47 = 97 ms; the session began at 50 ms (main #0's send).
    expect(seg('offset')[2]).toBeCloseTo(0.047, 6);
    expect(seg('tool wait')[2]).toBeCloseTo(0.02, 6);
    expect(seg('think')[2]).toBeCloseTo((300 - 75 - 117) / 1000, 6);
    expect(seg('join wait')[2]).toBeCloseTo(0.075, 6);
    expect(seg('waiting for first token')[2]).toBeCloseTo(0.06, 6);
    // b.sub1 #1 follows b.sub1 #0 (ended at 120 + 37): tool 5 ms, then think up to its send at 400.
    expect(seg('offset')[3]).toBeCloseTo(0.107, 6);
    expect(seg('tool wait')[3]).toBeCloseTo(0.005, 6);
    expect(seg('think')[3]).toBeCloseTo(0.238, 6);
    expect(sessionTimelineChart(sessionRecords(), 'nope')).toBeUndefined();
  });

  it('open-loop trace records (a ceiling, no session or turn): the section still sets the cached tokens beside the ceiling', async () => {
    const dir = tmpDir();
    const recs = sessionRecords().map((r) => ({ ...r, session: undefined, turn: undefined, agent: undefined, join_wait_ms: undefined, tool_wait_ms: undefined }));
    writeFileSync(join(dir, 'requests.jsonl'), recs.map((r) => recordLine(r)).join(''));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ model: 'm', target_url: 'http://127.0.0.1:1' }));
    const html = readFileSync(writeRunReport(dir), 'utf8');
    expect(html).toContain('Sessions and turns');
    expect(html).not.toContain('id="c-turn-latency"');
    expect(html).not.toContain('Longest sessions');
    const ceiling = 19 * 900 + 900;
    const cached = 19 * 450 + 500;
    expect(html).toContain(`<td>23</td><td>22,090</td><td>${ceiling.toLocaleString('en-US')}</td><td>${cached.toLocaleString('en-US')}</td>`);
  });

  it('a multi-turn dataset on simulate: the run\'s own report has the per-turn chart and table', async () => {
    const dir = tmpDir();
    const f = join(dir, 'multi.json');
    writeFileSync(f, JSON.stringify(Array.from({ length: 4 }, (_, c) => ({ conversations: [0, 1, 2].flatMap((t) => [{ from: 'human', value: `c${c} t${t} ${'w '.repeat(30 * (t + 1))}` }, { from: 'gpt', value: 'ok' }]) }))));
    const cap = capture();
    const out = join(dir, 'r');
    expect(await main(['simulate', '--dataset', f, '--dataset-mode', 'once', '--concurrency', '2', '--quiet', '--out', out], cap.io), cap.err).toBe(0);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('id="c-turn-latency"');
    expect(html).not.toContain('id="c-turn-reuse"'); // no ceiling without a trace
    if (!browser) return console.warn(NO_CHROMIUM);
    const page = await checkPage(browser, join(out, 'report.html'));
    expect(page.errors).toEqual([]);
    expect(page.text).toMatch(/By turn index/);
    expect(page.text).toMatch(/4 sessions; .*max 3; no subagents \(docs/);
    expect(page.text).toMatch(/^2\t4\t4\t/m);
    expect(page.drawn).toBe(page.canvases);
  }, 30_000);
});
