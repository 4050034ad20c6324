// Trace replay and `tokenflood dataset stats`: recorded send times, token-only traces, bad lines, histograms.
import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { createWorkload } from '../src/dataset/workload.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { resolveRunConfig } from '../src/config/load.js';
import type { RunConfigInput } from '../src/config/schema.js';
import type { RequestSpec } from '../src/dataset/types.js';
import { UsageError } from '../src/errors.js';
import { createRng } from '../src/util/rng.js';
import { run } from '../src/run.js';
import { registerDataset } from '../src/cli/dataset.js';
import { histogram, parseBuckets } from '../src/dataset/stats.js';
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
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('trace replay', () => {
  it('sends each request at its recorded time (ms) relative to the first, scaled by --replay-speed', async () => {
    const f = file('trace.jsonl', [
      { timestamp: 1_000_000, prompt: 'first', max_tokens: 3 },
      { timestamp: 1_000_400, input_tokens: 120, output_tokens: 5, class: 'bulk' },
      { timestamp: 1_000_200, body: { messages: [{ role: 'user', content: 'second' }], max_tokens: 4 } },
      { timestamp_s: 1000.6, input_tokens: 40 },
    ].map((o) => JSON.stringify(o)).join('\n'));
    const w = createWorkload(config({ replay: f, replaySpeed: 2, outputTokens: 9 }), tok, createRng(1), undefined);
    expect(w.arrivalTimesMs).toEqual([0, 100, 200, 300]);
    expect(w.size).toBe(4);
    const specs = [0, 1, 2, 3].map((i) => w.next(i) as RequestSpec);
    expect(specs.map((s) => s.maxTokens)).toEqual([3, 4, 5, 9]);
    expect(specs[2]).toMatchObject({ inputTokens: 120, class: 'bulk', source: `${f}:2` });
    expect(tok.count(specs[2].messages[0].content)).toBe(120);
    server = await startEchoServer(() => 'x');
    const res = await run({ validate: false, baseUrl: server.baseUrl, replay: f, replaySpeed: 2, out: tmpDir(), quiet: true });
    expect(res.records).toHaveLength(4);
    const sent = res.records.map((r) => r.sent_at_ms - res.records[0].sent_at_ms);
    [0, 100, 200, 300].forEach((t, i) => expect(Math.abs(sent[i] - t)).toBeLessThan(60));
    expect(res.summary.run.workload).toMatchObject({ kind: 'replay', requests: 4, speed: 2 });
  });

  it('bad trace lines are skipped with file:line, or fail the run with --strict', () => {
    const f = file('bad.jsonl', [
      JSON.stringify({ timestamp: 0, prompt: 'ok' }),
      JSON.stringify({ prompt: 'no time' }),
      JSON.stringify({ timestamp: 'yesterday-ish', prompt: 'x' }),
      JSON.stringify({ timestamp: 5 }),
      '{"timestamp": 9, ',
    ].join('\n'));
    const w = createWorkload(config({ replay: f }), tok, createRng(1), undefined);
    expect(w.size).toBe(1);
    let err: unknown;
    try {
      createWorkload(config({ replay: f, strict: true }), tok, createRng(1), undefined);
    } catch (e) {
      err = e;
    }
    expect((err as UsageError).problems).toEqual([
      `${f}:2: needs a timestamp (ms), timestamp_s (seconds) or an ISO-8601 timestamp`,
      `${f}:3: bad timestamp "yesterday-ish"`,
      `${f}:4: needs a prompt, messages, body or a positive integer input_tokens`,
      expect.stringMatching(new RegExp(`^${f}:5: not valid JSON`)),
    ]);
  });
});

describe('tokenflood dataset stats', () => {
  const stats = async (args: string[]) => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += d));
    const program = new Command().exitOverride();
    registerDataset(program, { out, err: process.stderr });
    await program.parseAsync(['dataset', 'stats', ...args], { from: 'user' });
    return text;
  };

  it('buckets input and output lengths and counts requests over --max-model-len', async () => {
    const f = file('s.jsonl', [
      { prompt: 'hello', max_tokens: 100 },
      { prompt: 'word '.repeat(2000), max_tokens: 100 },
      { prompt: 'word '.repeat(5000) },
    ].map((o) => JSON.stringify(o)).join('\n') + '\n{broken\n');
    const s = JSON.parse(await stats([f, '--json', '--max-model-len', '4096']));
    expect(s).toMatchObject({ items: 3, requests: 3, bad_records: 1, tokenizer: 'tiktoken:cl100k_base' });
    expect(s.input_tokens.histogram.map((b: { bucket: string; count: number }) => [b.bucket, b.count])).toEqual([
      ['0-1k', 1], ['1k-4k', 1], ['4k-16k', 1], ['16k-32k', 0], ['32k-48k', 0], ['48k-64k', 0], ['64k+', 0],
    ]);
    expect(s.output_tokens).toMatchObject({ count: 2, unknown: 1, mean: 100 });
    expect(s.max_model_len).toMatchObject({ limit: 4096, over: 1 });
    expect(s.problems[0]).toMatch(new RegExp(`^${f}:4: not valid JSON`));
    const text = await stats([f, '--buckets', '0,2k']);
    expect(text).toContain('3 items, 3 requests');
    expect(text).toContain('2k+');
  });

  it('parses bucket edges and rejects bad ones', () => {
    expect(parseBuckets('0,1k,4k')).toEqual([0, 1024, 4096]);
    expect(() => parseBuckets('0,4k,1k')).toThrow(/must increase/);
    expect(histogram([5, 50, 500], [10, 100]).map((b) => b.count)).toEqual([1, 1, 1]);
  });
});
