import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { loadTrace } from './registry.js';
import { hashCoverageProblem } from './problems.js';

let dir = '';
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
/** The problems of a load that must fail. */
function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as UsageError).problems;
  }
  throw new Error('the load did not fail');
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tf-trace-bad-'));
});

describe('bad traces are named by file, line (or session) and field, all at once', () => {
  it('a malformed line and hash_ids that cannot cover input_length', () => {
    const f = file(
      'bad.jsonl',
      [
        '{"timestamp": 0, "input_length": 2290, "output_length": 3, "hash_ids": [0, 1, 2, 3]}',
        '{"timestamp": 5, "input_length": 2290, "output_length": 3, "hash_ids": [0, 1]',
        '{"timestamp": 9, "input_length": 2290, "output_length": 3, "hash_ids": [0, 1]}',
        '{"timestamp": 9, "input_length": 100, "output_length": 3, "hash_ids": [0, 1]}',
        '{"timestamp": 9, "input_length": 0, "output_length": -1}',
      ].join('\n'),
    );
    const p = problemsOf(() => loadTrace(f, 'mooncake'));
    expect(p[0]).toMatch(new RegExp(`^${f}:2: record: not valid JSON`));
    expect(p.slice(1)).toEqual([
      `${f}:3: hash_ids: 2 blocks of 512 tokens cannot cover input_length 2290 (needs 4 or 5; --trace-block-size sets the block size)`,
      `${f}:4: hash_ids: 2 blocks of 512 tokens are more than input_length 100 fills (needs 0 or 1; --trace-block-size sets the block size)`,
      `${f}:5: input_length: must be a positive integer, got 0`,
      `${f}:5: output_length: must be a non-negative integer, got -1`,
    ]);
    // Under --block-size 1024 line 3's two blocks fit and line 1's four do not.
    expect(loadTrace(f, 'mooncake', { blockSize: 1024, skipBadLines: true }).requests.map((r) => r.source)).toEqual([`${f}:3`]);
  });

  it('a subagent without an id, and a session whose times go backwards', () => {
    const f = file(
      'session.json',
      JSON.stringify({
        id: 'sess-1',
        block_size: 64,
        requests: [
          { t: 0, type: 's', in: 64, out: 1, hash_ids: [1] },
          { t: 1, type: 'subagent', requests: [{ t: 0, type: 's', in: 64, out: 1, hash_ids: [7] }] },
          { t: 5, type: 's', in: 128, out: 1, hash_ids: [1, 2] },
          { t: 3, type: 's', in: 192, out: 1, hash_ids: [1, 2, 3] },
        ],
      }),
    );
    expect(problemsOf(() => loadTrace(f))).toEqual([
      `${f} session sess-1 requests[1]: agent_id: a subagent needs an id`,
      `${f} session sess-1 requests[3]: t: session sess-1: 3000 ms goes back before the session's previous request (5000 ms at ${f} session sess-1 requests[2])`,
    ]);
  });

  it('backwards timestamps within a Bailian session name the session', () => {
    const f = file(
      'bailian.jsonl',
      [
        '{"chat_id": 1, "parent_chat_id": -1, "timestamp": 10, "input_length": 16, "output_length": 1, "turn": 1, "hash_ids": [5]}',
        '{"chat_id": 2, "parent_chat_id": 1, "timestamp": 9.5, "input_length": 32, "output_length": 1, "turn": 2, "hash_ids": [5, 6]}',
      ].join('\n'),
    );
    expect(problemsOf(() => loadTrace(f))).toEqual([`${f}:2: timestamp: session 1: 9500 ms goes back before the session's previous request (10000 ms at ${f}:1)`]);
  });

  it('--skip-bad-lines counts the bad records and names the first five', () => {
    const lines = ['{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [0]}'];
    for (let i = 0; i < 7; i++) lines.push('not json');
    const f = file('many.jsonl', lines.join('\n'));
    const t = loadTrace(f, 'mooncake', { skipBadLines: true });
    expect(t.requests).toHaveLength(1);
    expect(t.summary.skippedBadRecords).toBe(7);
    expect(t.summary.warnings[0]).toBe('7 bad records skipped');
    expect(t.summary.warnings.slice(1).map((w) => w.split(': ')[0])).toEqual([2, 3, 4, 5, 6].map((n) => `${f}:${n}`));
  });

  it('a trace with nothing usable, or no file, is an error too', () => {
    expect(problemsOf(() => loadTrace(file('empty.jsonl', ''), 'mooncake'))).toEqual([`${join(dir, 'empty.jsonl')}: holds no usable request`]);
    expect(problemsOf(() => loadTrace(join(dir, 'nope.jsonl'), 'mooncake'))).toEqual([`${join(dir, 'nope.jsonl')}: cannot read: ENOENT`]);
  });

  it('coverage: floor(L/B) <= n <= ceil(L/B)', () => {
    expect(hashCoverageProblem([1, 2], 1024, 512)).toBeUndefined();
    expect(hashCoverageProblem([1, 2], 1025, 512)).toBeUndefined(); // Weka drops the partial last block
    expect(hashCoverageProblem([1, 2, 3], 1025, 512)).toBeUndefined();
    expect(hashCoverageProblem([1], 1024, 512)).toMatch(/cannot cover/);
    expect(hashCoverageProblem([1, 2, 3], 1024, 512)).toMatch(/more than/);
  });
});
