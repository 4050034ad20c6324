// --max-input-tokens / --max-output-tokens against a dataset's own lengths (issue 32 item 23): known before sending,
// so a record over a cap is a bad record (skipped, counted, named file:line) and --strict refuses the file.
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWorkload } from '../src/dataset/workload.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { resolveRunConfig } from '../src/config/load.js';
import type { RunConfigInput } from '../src/config/schema.js';
import { UsageError } from '../src/errors.js';
import { createRng } from '../src/util/rng.js';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

const tok = loadTokenizer('cl100k_base');
const config = (flags: RunConfigInput) => resolveRunConfig({ flags: flags as Record<string, unknown> }).config;
const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');

/** Line 1 short, line 2 a prompt of ~200 tokens, line 3 asking for 500 output tokens, line 4 short. */
function dataset(): string {
  const f = join(tmpDir(), 'caps.jsonl');
  const lines = [{ prompt: 'hello there', max_tokens: 8 }, { prompt: 'word '.repeat(200), max_tokens: 8 }, { prompt: 'short one', max_tokens: 500 }, { prompt: 'last short', max_tokens: 8 }];
  writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return f;
}

describe('vendor caps on dataset lengths', () => {
  it('skips and names the records over a cap; --strict refuses the file listing each', () => {
    const f = dataset();
    const w = createWorkload(config({ dataset: f, maxInputTokens: 100, maxOutputTokens: 64 }), tok, createRng(1), undefined);
    const d = w.describe() as { items: number; skipped_bad_records: number; skipped_over_caps: number; warnings: string[] };
    expect(d.items).toBe(2);
    expect(d.skipped_over_caps).toBe(2);
    expect(d.skipped_bad_records).toBe(2);
    expect(d.warnings).toContain(`${f}:2: prompt of ${tok.count('word '.repeat(200))} tokens is over --max-input-tokens 100`);
    expect(d.warnings).toContain(`${f}:3: max_tokens 500 is over --max-output-tokens 64`);
    let problems: string[] = [];
    try {
      createWorkload(config({ dataset: f, maxInputTokens: 100, maxOutputTokens: 64, strict: true }), tok, createRng(1), undefined);
    } catch (e) {
      if (e instanceof UsageError) problems = e.problems;
    }
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(new RegExp(`^${f}:2: prompt of \\d+ tokens is over --max-input-tokens 100$`));
    // No cap given: nothing skipped, no field.
    expect(createWorkload(config({ dataset: f }), tok, createRng(1), undefined).describe()).toMatchObject({ items: 4, skipped_bad_records: 0 });
  });

  it('a CLI run against the embedded server (which enforces the caps) sends only what fits: no HTTP 400s', async () => {
    const f = dataset();
    const out = join(tmpDir(), 'run');
    const r = await new Promise<{ code: number; err: string }>((resolve) =>
      execFile(process.execPath, [CLI, 'run', '--dataset', f, '--dataset-mode', 'once', '--max-input-tokens', '100', '--max-output-tokens', '64', '--sim-time-scale', '100', '--no-server-metrics', '--quiet', '--json', '--out', out], { timeout: 60_000 }, (e, _o, err) =>
        resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, err }),
      ),
    );
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.requests).toMatchObject({ total: 2, ok: 2, failed: 0 });
    const strict = await new Promise<{ code: number; err: string }>((resolve) =>
      execFile(process.execPath, [CLI, 'run', '--dataset', f, '--max-input-tokens', '100', '--strict', '--out', join(tmpDir(), 'strict')], { timeout: 60_000 }, (e, _o, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, err })),
    );
    expect(strict.code).toBe(2);
    expect(strict.err).toContain(`${f}:2: prompt of`);
  }, 90_000);

  it('--replay: a trace request over a cap is a bad record: exit 2 naming each, --skip-bad-lines skips and counts them', async () => {
    const lines = readFileSync(join(__dirname, '..', 'data', 'traces', 'mooncake-conversation-200.jsonl'), 'utf8').trim().split('\n').slice(0, 11);
    const lengths = lines.map((l) => (JSON.parse(l) as { input_length: number }).input_length);
    const over = lengths.flatMap((n, i) => (n > 20000 ? [i + 1] : []));
    expect(over.length).toBeGreaterThan(0);
    const f = join(tmpDir(), 'slice.jsonl');
    writeFileSync(f, lines.join('\n') + '\n');
    const args = ['run', '--replay', f, '--replay-speed', '100', '--max-input-tokens', '20000', '--sim-time-scale', '200', '--no-server-metrics', '--quiet'];
    const refused = capture();
    const outRefused = join(tmpDir(), 'refused');
    expect(await main([...args, '--out', outRefused], refused.io)).toBe(2);
    for (const i of over) expect(refused.err).toContain(`${f}: request ${i}: input_length ${lengths[i - 1]} is over --max-input-tokens 20000`);
    const c = capture();
    const out = join(tmpDir(), 'skipped');
    expect(await main([...args, '--skip-bad-lines', '--out', out], c.io), c.err).toBe(0);
    const s = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(s.requests).toMatchObject({ total: lines.length - over.length, failed: 0 });
    expect(s.run.workload).toMatchObject({ skipped_over_caps: over.length });
  }, 120_000);

  it('--replay in tokenflood\'s own format: lines over a cap skipped and named file:line, --strict refuses', () => {
    const f = join(tmpDir(), 'trace.jsonl');
    const lines = [{ timestamp_ms: 0, input_tokens: 50, output_tokens: 8 }, { timestamp_ms: 10, input_tokens: 500, output_tokens: 8 }, { timestamp_ms: 20, input_tokens: 50, output_tokens: 300 }, { timestamp_ms: 30, input_tokens: 60, output_tokens: 8 }];
    writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const caps = { replay: f, replayFormat: 'tokenflood', maxInputTokens: 100, maxOutputTokens: 64 } as RunConfigInput;
    const d = createWorkload(config(caps), tok, createRng(1), undefined).describe() as { requests: number; skipped_over_caps: number; warnings: string[] };
    expect(d.requests).toBe(2);
    expect(d.skipped_over_caps).toBe(2);
    expect(d.warnings).toEqual(expect.arrayContaining([`${f}:2: prompt of 500 tokens is over --max-input-tokens 100`, `${f}:3: max_tokens 300 is over --max-output-tokens 64`]));
    let problems: string[] = [];
    try {
      createWorkload(config({ ...caps, strict: true }), tok, createRng(1), undefined);
    } catch (e) {
      if (e instanceof UsageError) problems = e.problems;
    }
    expect(problems).toEqual([`${f}:2: prompt of 500 tokens is over --max-input-tokens 100`, `${f}:3: max_tokens 300 is over --max-output-tokens 64`]);
  });
});
