// `tokenflood trace stats` through the built CLI (dist/bin/tokenflood.js, one child process per call): the shipped Mooncake slice, and a bad trace (exit 2).
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderTraceStats } from '../src/cli/trace.js';
import { loadTrace } from '../src/dataset/trace/registry.js';
import { traceStats } from '../src/dataset/trace/stats.js';
import { parseBuckets, DEFAULT_BUCKETS } from '../src/dataset/stats.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
const SLICE = join(__dirname, '..', 'data', 'traces', 'mooncake-conversation-200.jsonl');

function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 30_000 }, (e, out, err) => resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }));
  });
}

describe('tokenflood trace stats', () => {
  it('--json gives the shape of the Mooncake slice; a bad trace is named by file, line and field with exit 2', async () => {
    const f = join(mkdtempSync(join(tmpdir(), 'tf-trace-cli-')), 'bad.jsonl');
    writeFileSync(f, ['{"timestamp": 0, "input_length": 1000, "output_length": 5, "hash_ids": [1, 2]}', '{"timestamp": 1, "input_length": 2290, "output_length": 5, "hash_ids": [1]}'].join('\n'));
    const [json, bad] = await Promise.all([cli(['trace', 'stats', SLICE, '--json']), cli(['trace', 'stats', f])]);
    expect(json.code).toBe(0);
    const s = JSON.parse(json.out);
    expect(s).toMatchObject({ file: SLICE, format: 'mooncake', block_size: 512, requests: 200, sessions: 0, standalone_requests: 200, skipped_bad_records: 0 });
    expect(s.detected).toMatch(/input_length and hash_ids/);
    expect(s.input_tokens).toMatchObject({ count: 200, min: 893, max: 120633 });
    expect(s.arrival).toMatchObject({ timed: 200, span_s: 72 });
    expect(s.arrival.windows).toHaveLength(12);
    expect(s.arrival.windows.reduce((n: number, w: { requests: number }) => n + w.requests, 0)).toBe(200);
    // The ceiling: the sum of input_length, and the tokens of blocks seen before in each request's prefix.
    expect(s.cache_ceiling).toMatchObject({ requests: 200, prompt_tokens: 2782179, cached_tokens: 164864 });
    expect(bad.code).toBe(2);
    expect(bad.err).toBe(`tokenflood: ${f}:2: hash_ids: 1 blocks of 512 tokens cannot cover input_length 2290 (needs 4 or 5; --trace-block-size sets the block size)\n`);
  });

  it('the terminal text: format and why, requests, arrivals, the ceiling, per-turn rows and subagents for a session trace', () => {
    const edges = parseBuckets(DEFAULT_BUCKETS);
    const m = loadTrace(SLICE);
    const text = renderTraceStats(SLICE, traceStats(m.requests, m.summary, edges));
    expect(text).toContain('mooncake (auto: first record has input_length and hash_ids (Mooncake)), 512-token blocks');
    expect(text).toContain('200 requests: 0 sessions, 200 stand-alone');
    expect(text).toContain('arrivals: 200 timed requests over 72.0 s, 2.78 req/s on average');
    expect(text).toContain('164864 of 2782179 prompt tokens (5.9%)');
    const wekaDir = join(__dirname, 'fixtures', 'traces', 'weka');
    const w = loadTrace(wekaDir);
    const wt = renderTraceStats(wekaDir, traceStats(w.requests, w.summary, edges));
    expect(wt).toContain('8 requests: 2 sessions, 0 stand-alone');
    expect(wt).toContain('subagents: 3 (4 requests, 1 in the background), fan-out per spawning turn: mean 1.5, max 2; 1 dropped (no parent turn before them)');
    expect(wt).toMatch(/turn +requests +prompt tokens +cached +ceiling\n[- ]+\n0 +5 +592 +192 +32\.4%\n1 +3 +672 +448 +66\.7%/);
  });
});

describe('tokenflood dataset fit', () => {
  it('fits the shipped Mooncake slice: --json carries every fit, the best by AIC, and a spec that parses', async () => {
    const slice = join(__dirname, 'fixtures', 'traces', 'mooncake-chains-74.jsonl');
    const [json, text] = await Promise.all([cli(['dataset', 'fit', slice, '--json']), cli(['dataset', 'fit', slice])]);
    expect(json.code, json.err).toBe(0);
    const d = JSON.parse(json.out);
    expect(d).toMatchObject({ format: 'mooncake', requests: 74, input_tokens: { n: 74, min: 1066, max: 11830, best: 'gamma' }, output_tokens: { n: 74, best: 'gamma' } });
    expect(d.input_tokens.fits.map((f: { kind: string }) => f.kind)).toEqual(['gamma', 'lognormal', 'exponential']);
    const aics = d.input_tokens.fits.map((f: { aic: number }) => f.aic);
    expect([...aics].sort((a: number, b: number) => a - b)).toEqual(aics);
    const { parseLengthDist } = await import('../src/dataset/distribution.js');
    expect(parseLengthDist(d.input_tokens.spec)).toMatchObject({ kind: 'gamma', min: 1066, max: 11830 });
    expect(text.code).toBe(0);
    expect(text.out).toContain(`reproduce with: tokenflood run --input-tokens '${d.input_tokens.spec}' --output-tokens '${d.output_tokens.spec}'`);
    const bad = await cli(['dataset', 'fit', slice, '--format', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--format: expected one of auto,');
  });

  it('fits a prompt dataset: its prompts counted with the tokenizer (the lengths `dataset stats` counts), its outputs from output_tokens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tf-fit-ds-'));
    // 120 prompts of 20..~1,000 words (a lognormal-like spread drawn from a fixed sequence), 80 of them with output_tokens.
    const lines: string[] = [];
    for (let i = 0; i < 120; i++) {
      const words = Math.round(20 * Math.exp(((i * 37) % 120) / 30));
      const prompt = Array.from({ length: words }, (_, j) => `word${(i * 7 + j) % 50}`).join(' ');
      lines.push(JSON.stringify(i % 3 === 2 ? { prompt } : { prompt, output_tokens: 50 + ((i * 13) % 200) }));
    }
    const f = join(dir, 'prompts.jsonl');
    writeFileSync(f, lines.join('\n') + '\n');
    const noOut = join(dir, 'no-outputs.jsonl');
    writeFileSync(noOut, lines.slice(0, 10).map((l) => JSON.stringify({ prompt: JSON.parse(l).prompt })).join('\n') + '\n');
    const [fit, stats, text, none] = await Promise.all([
      cli(['dataset', 'fit', f, '--json']),
      cli(['dataset', 'stats', f, '--json']),
      cli(['dataset', 'fit', f, '--format', 'dataset']),
      cli(['dataset', 'fit', noOut, '--json']),
    ]);
    expect(fit.code, fit.err).toBe(0);
    const d = JSON.parse(fit.out);
    const st = JSON.parse(stats.out);
    expect(d.format).toMatch(/^jsonl dataset, tokens counted with tiktoken:cl100k_base$/);
    expect(d).toMatchObject({ requests: 120, unknown_outputs: 40, input_tokens: { n: 120 }, output_tokens: { n: 80, min: 50 } });
    // The same counts as `dataset stats`.
    expect(d.input_tokens.mean).toBeCloseTo(st.input_tokens.mean, 6);
    expect(d.input_tokens.min).toBe(st.input_tokens.min);
    expect(d.input_tokens.max).toBe(st.input_tokens.max);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toContain('reproduce with: tokenflood run --input-tokens');
    expect(text.out).toContain('40 of 120 requests give no output length');
    expect(none.code, none.err).toBe(0);
    expect(JSON.parse(none.out).output_tokens.error).toContain('no output lengths in the data');
  });
});
