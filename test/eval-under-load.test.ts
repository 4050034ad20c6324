// --eval-under-load on a sweep: a sim fault that corrupts answers in engine steps of more than 8 sequences is found at 16, not at 8.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSweep } from '../src/cli/sweep.js';
import { registerRun } from '../src/cli/run.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

describe('sweep --eval-under-load', () => {
  it('reports accuracy per level against the idle baseline; the corruption shows at concurrency 16 and not at 8', async () => {
    const out = tmpDir();
    const r = await runCli(registerSweep, [
      'sweep', '--concurrency', '8,16', '--requests', '60', '--input-tokens', '64', '--output-tokens', '64',
      '--eval-under-load', 'gsm8k', '--eval-limit', '30', '--sim-accuracy', '0.9', '--sim-fault', 'corrupt-above=8',
      '--sim-time-scale', '10', '--out', out, '--quiet', '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    const ev = JSON.parse(r.out).eval;
    expect(Object.keys(ev.levels)).toEqual(['idle', 'c8-in64-out64', 'c16-in64-out64']);
    const idle = ev.levels.idle;
    const c8 = ev.levels['c8-in64-out64'];
    const c16 = ev.levels['c16-in64-out64'];
    // Every probe was sent and graded at each level (every 2nd of 60 requests = 30 items).
    for (const l of [idle, c8, c16]) expect(l.total).toBe(30);
    // At 8 no step holds more than 8 sequences: the fault cannot fire, so every item keeps its idle verdict.
    expect(c8).toMatchObject({ lost: 0, gained: 0, significant: false });
    expect(c8.correct).toBe(idle.correct);
    expect(c16.significant).toBe(true);
    expect(c16.p_value).toBeLessThan(0.05);
    expect(c16.lost).toBeGreaterThan(0);
    const lines = readFileSync(join(out, 'eval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(new Set(lines.map((l) => l.level))).toEqual(new Set(['idle', 'c8-in64-out64', 'c16-in64-out64']));
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('id="eval"');
    expect(html).toContain('By load level');
  }, 120_000);

  it('on run: the probes go out inside the load (class eval) and the summary JSON carries the levels', async () => {
    const out = tmpDir();
    const r = await runCli(registerRun, [
      'run', '--concurrency', '4', '--requests', '40', '--input-tokens', '32', '--output-tokens', '16', '--eval-under-load', 'mmlu', '--eval-limit', '20',
      '--sim-fault', 'corrupt-above=8', '--sim-time-scale', '50', '--temperature', '0', '--out', out, '--quiet', '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc.by_class.eval.requests.total).toBe(20);
    expect(Object.keys(doc.eval.levels)).toEqual(['idle', 'concurrency 4']);
    expect(doc.eval.levels['concurrency 4']).toMatchObject({ total: 20, lost: 0, gained: 0, significant: false });
  }, 60_000);

  it('on a replay of trace sessions: refused with exit 2 before anything is sent (turns wait for answers; no index for a probe)', async () => {
    const out = tmpDir();
    const trace = join(tmpDir(), 'session.json');
    writeFileSync(trace, JSON.stringify({ id: 's1', block_size: 64, requests: [{ t: 0, type: 's', in: 64, out: 4, hash_ids: [1] }, { t: 1, type: 's', in: 128, out: 4, hash_ids: [1, 2] }] }));
    const r = await runCli(registerRun, ['run', '--replay', trace, '--eval-under-load', 'mmlu', '--eval-limit', '5', '--out', out, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--eval-under-load: does not apply to a replay of trace sessions/);
    expect(existsSync(join(out, 'requests.jsonl'))).toBe(false);
  }, 60_000);
});
