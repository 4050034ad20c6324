// `tokenflood eval` against the embedded sim server (oracle mode): intervals, compare, transports, user sets, repeats, bad input.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerEval } from '../src/cli/eval.js';
import { registerCompare } from '../src/cli/compare.js';
import { runCli } from './fixtures/cli-harness.js';
import { tmpDir } from './helpers.js';

const FAST = ['--sim-time-scale', '100', '--quiet'];
const evalCli = (args: string[]) => runCli(registerEval, ['eval', ...FAST, ...args]);
const lines = (dir: string) => readFileSync(join(dir, 'eval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const evalJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'eval.json'), 'utf8'));

describe('tokenflood eval', () => {
  it('gsm8k at --sim-accuracy 0.8: the 95% interval holds 0.8; eval.jsonl keeps every answer; report.html has the section', async () => {
    const out = tmpDir();
    const r = await evalCli(['--set', 'gsm8k', '--sim-accuracy', '0.8', '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    const ev = doc.eval;
    expect(ev.items).toBe(300);
    expect(ev.overall.ci95[0]).toBeLessThanOrEqual(0.8);
    expect(ev.overall.ci95[1]).toBeGreaterThanOrEqual(0.8);
    expect(ev.sampling).toMatchObject({ temperature: 0, top_p: 1, seed: 1234 });
    expect(ev.performance.requests).toBe(300);
    const ls = lines(out);
    expect(ls).toHaveLength(300);
    // Every answer was kept and graded: the share marked correct is the accuracy reported.
    expect(ls.every((l) => typeof l.answer_text === 'string' && (l.answer_text as string).length > 0)).toBe(true);
    expect(ls.filter((l) => l.correct).length).toBe(ev.overall.correct);
    expect(new Set(ls.map((l) => l.rule)).size).toBeGreaterThanOrEqual(3);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('id="eval"');
    expect(html).toContain('Some wrong answers');
  }, 90_000);

  it('compare: int4 against fp16 flags the drop (McNemar p < 0.05) and exits 1 under --fail-on accuracy_drop=1', async () => {
    const fp16 = tmpDir();
    const int4 = tmpDir();
    for (const [dir, quant] of [[fp16, 'fp16'], [int4, 'int4']]) {
      const r = await evalCli(['--set', 'gsm8k', '--limit', '150', '--sim-accuracy', '0.8', '--sim-quant', quant, '--out', dir]);
      expect(r.code, r.err).toBe(0);
    }
    const failing = await runCli(registerCompare, ['compare', fp16, int4, '--fail-on', 'accuracy_drop=1', '--json', '--no-html']);
    expect(failing.code, failing.err).toBe(1);
    const cmp = JSON.parse(failing.out).eval[0];
    expect(cmp.overall.p_value).toBeLessThan(0.05);
    expect(cmp.overall.delta_points).toBeLessThan(-1);
    expect(cmp.overall.lost).toBeGreaterThan(cmp.overall.gained);
    expect(cmp.regressed).toBe(true);
    // Without the gate the same comparison reports and passes; the same eval twice shows no change.
    const plain = await runCli(registerCompare, ['compare', fp16, int4, '--no-html']);
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(/McNemar p = /);
    const same = await runCli(registerCompare, ['compare', fp16, fp16, '--fail-on', 'accuracy_drop=1', '--json', '--no-html']);
    expect(JSON.parse(same.out).eval[0].overall).toMatchObject({ lost: 0, gained: 0, p_value: 1 });
    expect(same.code).toBe(0);
  }, 90_000);

  it('grades the same on both transports (h1 and undici)', async () => {
    const verdicts: string[] = [];
    for (const transport of ['h1', 'undici']) {
      const out = tmpDir();
      const r = await evalCli(['--set', 'mmlu', '--limit', '30', '--transport', transport, '--out', out]);
      expect(r.code, r.err).toBe(0);
      verdicts.push(JSON.stringify(lines(out).map((l) => [l.item_id, l.extracted, l.correct])));
    }
    expect(verdicts[1]).toBe(verdicts[0]);
  }, 60_000);

  it("a user's JSONL: its own slice field is reported; --repeat 2 reports consistency; a reasoning model is graded on its answer", async () => {
    const dir = tmpDir();
    const file = join(dir, 'mine.jsonl');
    const src = readFileSync(join(__dirname, '..', 'data', 'evalsets', 'mmlu.jsonl'), 'utf8').trim().split('\n').slice(0, 20);
    writeFileSync(file, src.map((l, i) => JSON.stringify({ ...JSON.parse(l), difficulty: i % 2 ? 'hard' : 'easy' })).join('\n') + '\n');
    const out = join(dir, 'out');
    const r = await evalCli(['--set', file, '--repeat', '2', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const doc = evalJson(out);
    expect(Object.keys(doc.slices.difficulty).sort()).toEqual(['easy', 'hard']);
    expect(doc.consistency).toMatchObject({ repeat: 2, items: 20, identical_share: 1 });
    expect(lines(out)).toHaveLength(40);
    const reasoning = join(dir, 'reasoning');
    const r2 = await evalCli(['--set', file, '--model', 'llama-3.1-8b-reasoning', '--out', reasoning]);
    expect(r2.code, r2.err).toBe(0);
    // The reasoning holds a wrong guess; graded on the answer text, each item gets the plain model's verdict.
    const plain = new Map(lines(out).filter((l) => l.repeat === 0).map((l) => [l.item_id, l.correct]));
    for (const l of lines(reasoning)) expect(l.correct, String(l.item_id)).toBe(plain.get(l.item_id));
  }, 60_000);

  it('bad input: one clear message naming the flag or file line, exit 2, nothing sent or written', async () => {
    const dir = tmpDir();
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"question": "2+2?", "answer": "4"}\n{"question": "", "answer": "1"}\nnot json\n');
    const cases: [string[], RegExp][] = [
      [['--set', 'nope'], /--set: "nope" is neither a shipped set/],
      [['--set', bad], /bad\.jsonl:2: "question" must be a non-empty string[\s\S]*bad\.jsonl:3: not a JSON object/],
      [['--set', 'gsm8k', '--grade', 'regex'], /--grade regex: needs --grade-regex/],
      [['--set', 'gsm8k', '--repeat', '0'], /--repeat/],
      [['--set', 'gsm8k', '--sim-fault', 'explode'], /--sim-fault: expected corrupt-above=N/],
    ];
    for (const [args, msg] of cases) {
      const out = join(dir, `out-${cases.findIndex((c) => c[0] === args)}`);
      const r = await evalCli([...args, '--out', out]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(msg);
      expect(existsSync(out)).toBe(false);
    }
  }, 30_000);
});
