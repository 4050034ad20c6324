import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTrace, detectTraceKind, openTrace, TRACE_FORMATS } from './registry.js';

const fx = (f: string): string => join(__dirname, '..', '..', '..', 'test', 'fixtures', 'traces', f);
const slice = join(__dirname, '..', '..', '..', 'data', 'traces', 'mooncake-conversation-200.jsonl');

describe('trace loaders, one per format, on samples in the published shapes', () => {
  it('lists every format and auto', () => {
    expect(TRACE_FORMATS).toEqual(['auto', 'tokenflood', 'mooncake', 'bailian', 'weka', 'tracelab', 'burstgpt', 'azure']);
  });

  it('mooncake: the shipped slice of the FAST25 conversation trace, 512-token blocks', () => {
    const t = loadTrace(slice);
    expect(t.summary).toMatchObject({ kind: 'mooncake', blockSize: 512, requests: 200, skippedBadRecords: 0 });
    expect(t.summary.detected).toMatch(/input_length and hash_ids/);
    expect(t.requests[0]).toMatchObject({ index: 0, atMs: 0, inputLength: 6758, outputLength: 500, turn: 0, source: `${slice}:1` });
    expect(t.requests[0].hashIds).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(t.requests.every((r) => r.hashIds!.length === Math.ceil(r.inputLength / 512))).toBe(true);
  });

  it('mooncake with sessions: turns counted per session, delay kept as the gap', () => {
    const t = loadTrace(fx('mooncake-sessions.jsonl'), 'mooncake');
    expect(t.requests.map((r) => [r.session, r.turn, r.atMs, r.gapMs])).toEqual([
      ['s1', 0, 0, undefined],
      ['s2', 0, 500, undefined],
      ['s1', 1, undefined, 2000],
      [undefined, 0, 10535, undefined],
    ]);
  });

  it('bailian: sessions by root chat_id, timestamps in s, 16-token blocks, turn 1-based in the file', () => {
    const t = loadTrace(fx('bailian.jsonl'));
    expect(t.summary).toMatchObject({ kind: 'bailian', blockSize: 16 });
    expect(t.requests.map((r) => [r.session, r.turn, r.atMs])).toEqual([
      ['159', 0, 61114],
      ['161', 0, 61900],
      ['159', 1, 62500],
      ['159', 2, 70250],
    ]);
  });

  it('weka: a directory of session files; subagents spawn after the preceding turn, join before the following, background without one, dropped without a preceding turn', () => {
    const t = loadTrace(fx('weka'));
    expect(t.summary).toMatchObject({ kind: 'weka', blockSize: 64, droppedSubagents: 1, detected: expect.stringMatching(/directory/) });
    expect(t.summary.warnings).toEqual(['1 subagents dropped: no parent turn before them to spawn them']);
    const a = t.requests.filter((r) => r.session === '8712b46f-04e');
    expect(a.map((r) => [r.agent ?? 'main', r.turn, r.atMs, r.spawn])).toEqual([
      ['main', 0, 0, undefined],
      ['96624242', 0, 4500, { afterTurn: 0, joinTurn: 1 }],
      ['96624242', 1, 6000, { afterTurn: 0, joinTurn: 1 }],
      ['5d1c0a77', 0, 4600, { afterTurn: 0, joinTurn: 1 }],
      ['main', 1, 9000, undefined],
      ['0be7f00d', 0, 12500, { afterTurn: 1 }],
    ]);
    expect(a[4]).toMatchObject({ gapMs: 1200, model: 'claude-sonnet-4-20250514', source: `${fx('weka/trace_0001.json')} session 8712b46f-04e requests[3]` });
    // Hash ids are per conversation: file k of n maps h to h*n + k, so the two files' block 1 differ.
    expect(a[0].hashIds).toEqual([2, 4, 6]);
    const b = t.requests.filter((r) => r.session === 'f99f3001-351');
    expect(b.map((r) => [r.agent ?? 'main', r.turn])).toEqual([['main', 0], ['main', 1]]);
    expect(b[0].hashIds).toEqual([3, 5]);
  });

  it('weka: absolute subagent times (SemiAnalysis) are kept as they are', () => {
    const t = loadTrace(fx('weka/trace_0002.json'));
    expect(t.requests.map((r) => r.atMs)).toEqual([200, 3000]);
  });

  it('tracelab: rounds by session, send time from the first event, tool time, blocks minted from the prefix split', () => {
    const t = loadTrace(fx('tracelab.jsonl'));
    expect(t.summary).toMatchObject({ kind: 'tracelab', blockSize: 64 });
    const [r0, r1, c0] = t.requests;
    expect(r0).toMatchObject({ session: 'claude:92ee5b8a', turn: 0, inputLength: 320, outputLength: 93, atMs: Date.parse('2026-06-01T05:40:20.151Z'), toolMs: 20102 });
    expect(r0.hashIds).toEqual([0, 1, 2, 3, 4]);
    // prefix 300 → floor(300/64) = 4 blocks reused; 500 tokens → 8 blocks.
    expect(r1.hashIds).toEqual([0, 1, 2, 3, 5, 6, 7, 8]);
    expect(c0).toMatchObject({ session: 'codex:a611041f', turn: 0, hashIds: [9, 10, 11] });
  });

  it('burstgpt and azure CSV: one stand-alone request per row', () => {
    const b = loadTrace(fx('burstgpt.csv'));
    expect(b.summary.kind).toBe('burstgpt');
    expect(b.requests.map((r) => [r.atMs, r.inputLength, r.outputLength, r.model])).toEqual([
      [5000, 472, 18, 'ChatGPT'],
      [45000, 1087, 0, 'ChatGPT'],
      [118000, 417, 276, 'GPT-4'],
    ]);
    const a = loadTrace(fx('azure.csv'));
    expect(a.summary.kind).toBe('azure');
    expect(a.requests.map((r) => [r.atMs! - a.requests[0].atMs!, r.inputLength, r.outputLength])).toEqual([
      [0, 374, 44],
      [4314.579, 396, 109],
      [4625.232, 879, 91],
    ].map(([d, i, o]) => [expect.closeTo(d, 3), i, o]));
  });

  it("tokenflood's own replay format, read by dataset/replay.ts", () => {
    const t = loadTrace(fx('tokenflood.jsonl'), 'auto', { countTokens: (s) => s.split(' ').length });
    expect(t.summary.kind).toBe('tokenflood');
    expect(t.requests.map((r) => [r.atMs, r.inputLength, r.outputLength])).toEqual([
      [0, 120, 30],
      [250, 8, 64],
    ]);
    expect(t.requests[1].messages?.[0].content).toMatch(/Hamlet/);
  });

  it('auto names what it chose; an unknown kind lists the valid ones', () => {
    expect(detectTraceKind(fx('bailian.jsonl'))).toEqual({ kind: 'bailian', reason: 'first record has chat_id (Bailian)' });
    expect(detectTraceKind(fx('weka/trace_0001.json')).kind).toBe('weka');
    expect(() => openTrace(fx('bailian.jsonl'), 'mooncake', { blockSize: 0 })).toThrow(/--block-size: must be a positive integer, got 0/);
    const csv = join(mkdtempSync(join(tmpdir(), 'tf-trace-kind-')), 'qa.csv');
    writeFileSync(csv, 'question,answer\nwhy,because\n');
    expect(() => detectTraceKind(csv)).toThrow(`${csv}:1: cannot tell the trace format from the first record "question,answer": name it with --replay-format (auto, tokenflood, mooncake, bailian, weka, tracelab, burstgpt, azure)`);
    expect(() => openTrace(fx('bailian.jsonl'), 'sharegpt')).toThrow(/--replay-format: unknown kind "sharegpt" \(valid: tokenflood, mooncake, bailian, weka, tracelab, burstgpt, azure\)/);
  });
});
