// --priority-mix: the parser, the seeded per-request draw, the workload wrapper (the data's priority wins) and the option checks.
import { parseTrace } from './replay.js';
import { describe, expect, it } from 'vitest';
import { dataPriority, drawPriority, parsePriorityMix, priorityProblems, sentPriority, withPriorityMix } from './priority.js';
import type { RequestSpec } from './types.js';
import { recordToItem } from './record.js';
import type { Workload } from './workload-types.js';

const spec = (over: Partial<RequestSpec> = {}): RequestSpec => ({ messages: [{ role: 'user', content: 'hi' }], prompt: 'hi', inputTokens: 1, maxTokens: 4, ...over });

describe('parsePriorityMix', () => {
  it('reads PRIORITY:WEIGHT entries and normalises the weights to shares', () => {
    expect(parsePriorityMix('0:0.2,10:0.8')).toEqual([{ priority: 0, share: 0.2 }, { priority: 10, share: 0.8 }]);
    expect(parsePriorityMix(' -5 : 1 , 3:3 ')).toEqual([{ priority: -5, share: 0.25 }, { priority: 3, share: 0.75 }]);
    expect(parsePriorityMix('0:20%,10:80%').map((c) => c.share)).toEqual([0.2, 0.8]);
    expect(parsePriorityMix('7:.5')).toEqual([{ priority: 7, share: 1 }]);
  });

  it('names every bad entry in one message', () => {
    expect(() => parsePriorityMix('high:0.2')).toThrow(/"high:0.2" is not PRIORITY:WEIGHT/);
    expect(() => parsePriorityMix('1.5:1')).toThrow(/"1.5:1" is not PRIORITY:WEIGHT/);
    expect(() => parsePriorityMix('0:0,1:1')).toThrow(/priority 0 has weight 0: weights must be above 0/);
    expect(() => parsePriorityMix('0:1,0:2')).toThrow(/priority 0 is given twice/);
    expect(() => parsePriorityMix('0:-1')).toThrow(/"0:-1" is not PRIORITY:WEIGHT/);
    expect(() => parsePriorityMix('0:1,,2:1')).toThrow(/empty entry/);
    expect(() => parsePriorityMix('99999999999:1')).toThrow(/out of range/);
    const both = (() => {
      try {
        parsePriorityMix('x:1,0:0');
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(both).toMatch(/"x:1".*; priority 0 has weight 0/);
  });
});

describe('drawPriority', () => {
  const mix = parsePriorityMix('0:0.2,10:0.8');
  it('is a function of the seed and the request index only', () => {
    const a = Array.from({ length: 50 }, (_, i) => drawPriority(mix, 7, i));
    const reversed = Array.from({ length: 50 }, (_, k) => drawPriority(mix, 7, 49 - k)).reverse();
    expect(reversed).toEqual(a);
    const other = Array.from({ length: 50 }, (_, i) => drawPriority(mix, 8, i));
    expect(other).not.toEqual(a);
  });

  it('gives each class about its share', () => {
    for (const seed of [1, 42, 123456]) {
      const n = 5000;
      let urgent = 0;
      for (let i = 0; i < n; i++) if (drawPriority(mix, seed, i) === 0) urgent++;
      // Binomial(5000, 0.2): sd ≈ 28, so ±150 is more than 5 sd.
      expect(urgent).toBeGreaterThan(n * 0.2 - 150);
      expect(urgent).toBeLessThan(n * 0.2 + 150);
    }
  });
});

describe('withPriorityMix', () => {
  const mix = parsePriorityMix('0:0.5,9:0.5');
  const shared = spec();
  const own = spec({ priority: 3 });
  const base: Workload = { next: (i) => (i % 4 === 3 ? own : i < 8 ? shared : undefined), prefetchable: true, size: 8, describe: () => ({ kind: 'test' }) };

  it("gives requests without a priority the mix's draw, keeps the data's own, copies rather than changes the spec", () => {
    const w = withPriorityMix(base, mix, 11);
    const got = Array.from({ length: 8 }, (_, i) => w.next(i) as RequestSpec);
    for (let i = 0; i < 8; i++) expect(got[i].priority).toBe(i % 4 === 3 ? 3 : drawPriority(mix, 11, i));
    expect(new Set(got.filter((_, i) => i % 4 !== 3).map((s) => s.priority))).toEqual(new Set([0, 9]));
    expect(shared.priority).toBeUndefined();
    expect(w.next(9)).toBeUndefined();
    expect(w.prefetchable).toBe(true);
    expect(w.size).toBe(8);
    expect(w.describe()).toEqual({ kind: 'test', priority_mix: [{ priority: 0, share: 0.5 }, { priority: 9, share: 0.5 }] });
  });

  it('works on a workload whose next() waits (multi-turn, cache A/B)', async () => {
    const w = withPriorityMix({ next: async () => shared, describe: () => ({}) }, mix, 11);
    expect((await w.next(5))?.priority).toBe(drawPriority(mix, 11, 5));
  });

  it('hands each completion back with the workload\'s own spec (session replays find a turn by its spec object)', () => {
    const turn = spec();
    const seen: RequestSpec[] = [];
    const w = withPriorityMix({ next: () => turn, complete: (d) => void seen.push(d.spec), describe: () => ({}) }, mix, 11);
    const sent = w.next(2) as RequestSpec;
    expect(sent).not.toBe(turn);
    w.complete!({ spec: sent, ok: true, answerText: 'a', reasoningText: '', record: {} as never });
    w.complete!({ spec: own, ok: true, answerText: 'b', reasoningText: '', record: {} as never });
    expect(seen[0]).toBe(turn);
    expect(seen[1]).toBe(own);
  });
});

describe('data priority and what is sent', () => {
  it('reads an integer (or integer text, as CSV holds it) and refuses anything else', () => {
    expect(dataPriority(3)).toBe(3);
    expect(dataPriority(' -2 ')).toBe(-2);
    expect(dataPriority(undefined)).toBeUndefined();
    expect(dataPriority('')).toBeUndefined();
    expect(dataPriority(1.5)).toBe('priority must be an integer (lower runs first), got 1.5');
    expect(dataPriority('high', 'prio')).toBe('prio must be an integer (lower runs first), got "high"');
  });

  it('a record carries it, under its own name or a --dataset-field mapping; a bad one makes the record bad', () => {
    expect((recordToItem({ prompt: 'a', priority: 2 }, 'd:1', {}) as { priority?: number }).priority).toBe(2);
    expect((recordToItem({ question: 'a', prio: '-3' }, 'd.csv:2', { prompt: 'question', priority: 'prio' }) as { priority?: number }).priority).toBe(-3);
    expect((recordToItem({ prompt: 'a' }, 'd:1', {}) as { priority?: number }).priority).toBeUndefined();
    expect(recordToItem({ prompt: 'a', prio: 'x' }, 'd:1', { priority: 'prio' })).toBe('prio must be an integer (lower runs first), got "x"');
  });

  it('a replay line carries it too: its own, its body\'s, or a --dataset-field mapping', () => {
    const lines = [
      '{"timestamp": 0, "prompt": "a", "priority": 2}',
      '{"timestamp": 1, "body": {"prompt": "b", "priority": -1}}',
      '{"timestamp": 2, "prompt": "c", "level": 3}',
      '{"timestamp": 3, "input_tokens": 10, "priority": 4}',
    ].join('\n');
    expect(parseTrace('t.jsonl', lines).entries.map((e) => e.priority)).toEqual([2, -1, undefined, 4]);
    const mapped = parseTrace('t.jsonl', lines, ['priority=level']);
    expect(mapped.problems).toEqual([]);
    expect(mapped.entries[2].priority).toBe(3);
    expect(parseTrace('t.jsonl', '{"timestamp": 0, "prompt": "a", "level": "x"}', ['priority=level']).problems).toEqual(['t.jsonl:1: level must be an integer (lower runs first), got "x"']);
  });

  it("the request's own priority wins over --extra-body's; --no-priority-send leaves only --extra-body's", () => {
    const extraBody = { priority: 4 };
    expect(sentPriority(spec({ priority: 1 }), { prioritySend: true, extraBody })).toBe(1);
    expect(sentPriority(spec(), { prioritySend: true, extraBody })).toBe(4);
    expect(sentPriority(spec({ priority: 1 }), { prioritySend: false, extraBody })).toBe(4);
    expect(sentPriority(spec({ priority: 1 }), { prioritySend: false })).toBeUndefined();
    // A backend without a priority field sends none: the data's priority is a label only.
    expect(sentPriority(spec({ priority: 1 }), { prioritySend: true, backend: 'openai-completions' })).toBe(1);
    expect(sentPriority(spec({ priority: 1 }), { prioritySend: true, backend: 'ollama' })).toBeUndefined();
  });

  it('refuses a mix the protocol cannot carry, and a mix next to --extra-body priority', () => {
    expect(priorityProblems({ priorityMix: '0:1', prioritySend: true })).toEqual([]);
    expect(priorityProblems({ priorityMix: '0:1', prioritySend: true, backend: 'openai-completions' })).toEqual([]);
    expect(priorityProblems({ priorityMix: '0:1', prioritySend: true, backend: 'tgi' })).toEqual([expect.stringMatching(/^--priority-mix: --backend tgi has no per-request priority field/)]);
    expect(priorityProblems({ priorityMix: '0:1', prioritySend: false, backend: 'tgi' })).toEqual([]);
    expect(priorityProblems({ priorityMix: '0:1', prioritySend: true, extraBody: { priority: 0 } })).toEqual([expect.stringMatching(/^--priority-mix: --extra-body also sets "priority"/)]);
    expect(priorityProblems({ prioritySend: true, backend: 'tgi', extraBody: { priority: 0 } })).toEqual([]);
  });
});
