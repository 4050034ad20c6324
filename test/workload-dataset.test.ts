// Real data: JSONL, ShareGPT and CSV files, once/reuse modes, bad lines with line numbers, multi-turn conversations.
import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorkload } from '../src/dataset/workload.js';
import { loadDataset } from '../src/dataset/load.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { resolveRunConfig } from '../src/config/load.js';
import type { RunConfigInput } from '../src/config/schema.js';
import type { RequestSpec } from '../src/dataset/types.js';
import { UsageError } from '../src/errors.js';
import { createRng } from '../src/util/rng.js';
import { run } from '../src/run.js';
import { startEchoServer } from './workload-fixtures.js';
import type { ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

const tok = loadTokenizer('cl100k_base');
const config = (flags: RunConfigInput) => resolveRunConfig({ flags: flags as Record<string, unknown> }).config;
const file = (name: string, text: string): string => {
  const f = join(tmpDir(), name);
  writeFileSync(f, text);
  return f;
};
const problemsOf = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof UsageError) return e.problems;
    throw e;
  }
  throw new Error('expected a UsageError');
};
type Body = { messages: { role: string; content: string }[]; max_tokens: number };

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('dataset files', () => {
  it('once mode: a 500-line file is sent exactly once per line, in order, by 32 users, and the run stops by itself', async () => {
    // max_tokens = line + 1 ties every request back to its line.
    const lines = Array.from({ length: 500 }, (_, i) => JSON.stringify({ prompt: `question number ${i}`, max_tokens: i + 1 }));
    const f = file('data.jsonl', lines.join('\n') + '\n');
    server = await startEchoServer(() => 'a', () => 1, 2);
    const res = await run({ validate: false, baseUrl: server.baseUrl, concurrency: 32, dataset: f, datasetMode: 'once', out: tmpDir(), quiet: true });
    expect(res.records).toHaveLength(500);
    const got = (server.bodies as Body[]).map((b) => Number(/\d+$/.exec(b.messages[0].content)![0]));
    expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect((server.bodies as Body[]).every((b, k) => b.max_tokens === got[k] + 1)).toBe(true);
    // In order: request i (the i-th handed out of the one shared queue) carried line i.
    expect(res.records.every((r, i) => r.id === i && r.max_tokens === i + 1 && r.status === 'ok')).toBe(true);
    expect(res.summary.run.workload).toMatchObject({ kind: 'dataset', mode: 'once', items: 500, skipped_bad_records: 0 });
  });

  it('the workload hands items out in file order (once), cycles (reuse) or picks at random, repeatably', () => {
    const f = file('d.jsonl', ['a', 'b', 'c'].map((p) => JSON.stringify({ prompt: p })).join('\n'));
    const take = (flags: RunConfigInput, n: number, seed = 1) => {
      const w = createWorkload(config({ dataset: f, ...flags }), tok, createRng(seed), undefined);
      return Array.from({ length: n }, (_, i) => (w.next(i) as RequestSpec | undefined)?.prompt ?? null);
    };
    expect(take({ datasetMode: 'once' }, 4)).toEqual(['a', 'b', 'c', null]);
    expect(take({}, 5)).toEqual(['a', 'b', 'c', 'a', 'b']);
    const r = take({ datasetOrder: 'random' }, 30);
    expect(new Set(r)).toEqual(new Set(['a', 'b', 'c']));
    expect(take({ datasetOrder: 'random' }, 30)).toEqual(r);
    expect(take({ datasetOrder: 'random', datasetMode: 'once' }, 4).slice(0, 3).sort()).toEqual(['a', 'b', 'c']);
  });

  it('JSONL: prompt or messages, with max_tokens/output_tokens/class; bad lines skipped with file:line, or fatal with --strict', () => {
    const f = file('mixed.jsonl', [
      JSON.stringify({ prompt: 'hello there', max_tokens: 7, class: 'chat' }),
      '{not json',
      JSON.stringify({ messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }], output_tokens: 3 }),
      JSON.stringify({ text: 'no prompt' }),
      '',
      JSON.stringify({ prompt: 'x', max_tokens: -1 }),
      JSON.stringify({ messages: [{ role: 'robot', content: 'x' }] }),
    ].join('\n'));
    const d = loadDataset(f);
    expect(d.items).toHaveLength(2);
    expect(d.items[0]).toMatchObject({ class: 'chat', turns: [{ maxTokens: 7 }], source: `${f}:1` });
    expect(d.items[1].turns[0].messages).toHaveLength(2);
    expect(d.problems.map((p) => p.split(': ')[0])).toEqual([`${f}:2`, `${f}:4`, `${f}:6`, `${f}:7`]);
    expect(d.problems[1]).toContain('needs a "prompt" string or a "messages" array');
    expect(d.problems[2]).toContain('max_tokens must be a positive integer');
    const w = createWorkload(config({ dataset: f }), tok, createRng(1), undefined);
    expect(w.describe()).toMatchObject({ skipped_bad_records: 4, warnings: expect.arrayContaining([expect.stringContaining(`${f}:2: not valid JSON`)]) });
    const strict = problemsOf(() => createWorkload(config({ dataset: f, strict: true }), tok, createRng(1), undefined));
    expect(strict).toHaveLength(4);
    expect(strict[0]).toMatch(new RegExp(`^${f}:2: not valid JSON`));
  });

  it('ShareGPT: conversations become turns; bad elements are reported with the line they start on', () => {
    const f = file('share.json', `[
  {"id": "a", "conversations": [{"from": "human", "value": "What is 2+2?"}, {"from": "gpt", "value": "Four."}]},
  {"id": "b", "conversations": [{"from": "alien", "value": "?"}]},
  {"id": "c", "conversations": [
    {"from": "system", "value": "You are terse."},
    {"from": "human", "value": "One"}, {"from": "gpt", "value": "Uno, in Spanish."},
    {"from": "human", "value": "Two"}, {"from": "gpt", "value": "Dos."}
  ]},
  {"id": "d", "conversations": [{"from": "gpt", "value": "only a reply"}]}
]`);
    const d = loadDataset(f);
    expect(d.format).toBe('sharegpt');
    expect(d.items).toHaveLength(2);
    expect(d.items[1].turns).toHaveLength(2);
    expect(d.items[1].turns[0].messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(d.problems).toEqual([`${f}:3: conversations[0] has unknown from "alien" (expected human, gpt or system)`, `${f}:9: conversation has no human message`]);
    const broken = file('broken.json', '[\n  {"conversations": []},\n  {"conversations": [}\n]');
    const bp = problemsOf(() => loadDataset(broken));
    expect(bp[1]).toBe(`${broken}:2: conversation has no human message`);
    expect(bp[2]).toMatch(new RegExp(`^${broken}:3: not valid JSON`));
  });

  it('CSV with --dataset-field mapping; quoted fields with commas and line breaks; bad rows with their line', () => {
    const f = file('q.csv', 'id,question,len,kind\n1,"Hello, world",5,a\n2,"a ""quoted""\nmulti-line question",6,b\n3,short,notanumber,a\n4,too,many,fields,here\n5,"unterminated,3,a\n');
    const fields = ['prompt=question,max_tokens=len', 'class=kind'];
    const d = loadDataset(f, { fields });
    expect(d.items.map((i) => i.turns[0].messages[0].content)).toEqual(['Hello, world', 'a "quoted"\nmulti-line question']);
    expect(d.items.map((i) => [i.turns[0].maxTokens, i.class])).toEqual([[5, 'a'], [6, 'b']]);
    expect(d.problems).toEqual([
      `${f}:5: len must be a positive integer, got "notanumber"`,
      `${f}:6: expected 4 fields (id,question,len,kind), got 5`,
      `${f}:7: unterminated quoted field`,
    ]);
    expect(problemsOf(() => loadDataset(f, { fields: ['prompt'] }))).toEqual(['--dataset-field: expected KEY=COLUMN, got "prompt"']);
    expect(problemsOf(() => loadDataset(f, { fields: ['question=prompt'] }))[0]).toContain('unknown key "question"');
    const nomap = problemsOf(() => loadDataset(f, { strict: true }));
    expect(nomap[0]).toBe(`${f}:2: needs a "prompt" string or a "messages" array`);
  });

  it('--max-model-len skips items whose input + max_tokens overflow, counted in describe()', () => {
    const f = file('long.jsonl', [JSON.stringify({ prompt: 'short', max_tokens: 10 }), JSON.stringify({ prompt: 'word '.repeat(300), max_tokens: 10 })].join('\n'));
    const w = createWorkload(config({ dataset: f, maxModelLen: 100, datasetMode: 'once' }), tok, createRng(1), undefined);
    expect(w.size).toBe(1);
    expect(w.describe()).toMatchObject({ skipped_over_max_model_len: 1, warnings: [expect.stringContaining('1 items skipped')] });
  });
});

describe('multi-turn conversations', () => {
  it('sends turns in order with the real previous answers as history; turn-1 and turn-2+ are separate classes', async () => {
    const convs = Array.from({ length: 6 }, (_, c) => ({
      conversations: [0, 1, 2].flatMap((t) => [{ from: 'human', value: `conv ${c} turn ${t}` }, { from: 'gpt', value: 'recorded answer' }]),
    }));
    const f = file('multi.json', JSON.stringify(convs, null, 1));
    server = await startEchoServer((b: Body) => `answer to ${b.messages[b.messages.length - 1].content}`, () => 1, 5);
    const res = await run({ validate: false, baseUrl: server.baseUrl, concurrency: 3, dataset: f, datasetMode: 'once', thinkTime: '20ms', out: tmpDir(), quiet: true });
    expect(res.records).toHaveLength(18);
    const bodies = server.bodies as Body[];
    for (const b of bodies) {
      const last = b.messages[b.messages.length - 1].content;
      const [, c, t] = /conv (\d) turn (\d)/.exec(last)!.map(Number);
      expect(b.messages).toHaveLength(2 * t + 1);
      for (let k = 0; k < t; k++) {
        expect(b.messages[2 * k]).toEqual({ role: 'user', content: `conv ${c} turn ${k}` });
        expect(b.messages[2 * k + 1]).toEqual({ role: 'assistant', content: `answer to conv ${c} turn ${k}` });
      }
    }
    expect(res.summary.by_class?.['turn-1'].requests.total).toBe(6);
    expect(res.summary.by_class?.['turn-2+'].requests.total).toBe(12);
    expect(res.summary.run.workload).toMatchObject({ conversations: 6, turns: 18, sessions_started: 6, sessions_cut_short: 0 });
    // Think time: a later turn is sent at least 20 ms after its previous turn ended.
    expect(res.records.filter((r) => r.class === 'turn-2+').every((r) => r.schedule_lag_ms >= 0)).toBe(true);
  });

  it('once mode: a user that finds no new conversation waits for one still going on instead of leaving (each next() takes a request index)', async () => {
    const f = file('one.json', JSON.stringify([{ conversations: [0, 1, 2].flatMap((t) => [{ from: 'human', value: `turn ${t}` }, { from: 'gpt', value: 'a' }]) }]));
    const w = createWorkload(config({ dataset: f, datasetMode: 'once', concurrency: 2 }), tok, createRng(1));
    expect(w.size).toBe(3);
    const first = (await w.next(0)) as RequestSpec;
    let second: RequestSpec | undefined | 'pending' = 'pending';
    const p = Promise.resolve(w.next(1)).then((s) => (second = s));
    await new Promise((r) => setTimeout(r, 20));
    // The only conversation is in flight: the second user must not be told the data ran out.
    expect(second).toBe('pending');
    w.complete?.({ spec: first, ok: true, answerText: 'answer 0', reasoningText: '', record: { output_tokens: null, reasoning_tokens: null, token_source: 'none' } as never });
    await p;
    expect((second as unknown as RequestSpec).turn).toBe(1);
  });

  it('JSONL lines with a session id and turn order form one conversation', () => {
    const f = file('sessions.jsonl', [
      { session: 's1', turn: 2, prompt: 'third' },
      { session: 's1', turn: 1, prompt: 'second' },
      { prompt: 'single' },
      { conversation: 's1', turn: 0, prompt: 'first' },
    ].map((o) => JSON.stringify(o)).join('\n'));
    const d = loadDataset(f);
    expect(d.items).toHaveLength(2);
    expect(d.items[0].turns.map((t) => t.messages[0].content)).toEqual(['first', 'second', 'third']);
    expect(problemsOf(() => loadDataset(file('bad.jsonl', '{"session":"a","turn":"x","prompt":"p"}'), { strict: true }))[0]).toMatch(/bad\.jsonl:1: turn must be a number/);
  });
});
