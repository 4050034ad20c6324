// Open-loop trace replay (issue 27): a Mooncake slice on `simulate` and on the embedded server, token-exact prompts, send
// times on the scaled timestamps, cached prompt tokens against the trace's cache ceiling; BurstGPT and Azure CSV.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { simulate } from '../src/simulate.js';
import { createWorkload } from '../src/dataset/workload.js';
import { loadTokenizer } from '../src/dataset/tokenizer.js';
import { resolveRunConfig } from '../src/config/load.js';
import type { RunConfigInput } from '../src/config/schema.js';
import type { RequestSpec } from '../src/dataset/types.js';
import { UsageError } from '../src/errors.js';
import { createRng } from '../src/util/rng.js';
import { cacheCeiling } from '../src/dataset/trace/ceiling.js';
import { loadTrace } from '../src/dataset/trace/registry.js';
import type { RequestRecord } from '../src/metrics/record.js';
import { OPEN_LOOP_TUNING } from '../src/dataset/trace/replay/open-loop.js';
import { promptWorkerFile } from '../src/dataset/trace/replay/prompt-ahead.js';
import { tmpDir } from './helpers.js';

const SAMPLE = join(__dirname, '..', 'data', 'traces', 'mooncake-conversation-200.jsonl');
const CHILD = join(__dirname, '..', 'dist', 'sim', 'child.js');
const tok = loadTokenizer('cl100k_base');
const config = (flags: RunConfigInput) => resolveRunConfig({ flags: flags as Record<string, unknown> }).config;
const file = (name: string, text: string): string => {
  const f = join(tmpDir(), name);
  writeFileSync(f, text);
  return f;
};
const runJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

/** The sample's first `n` lines, as the trace records them. */
const traceLines = (n: number) => readFileSync(SAMPLE, 'utf8').trim().split('\n').slice(0, n).map((l) => JSON.parse(l) as { timestamp: number; input_length: number; output_length: number; hash_ids: number[] });
const lineOf = (r: RequestRecord): number => Number(String(r.source).split(':').pop());

/** Checks every record against its trace line; returns the cached and ceiling sums and the worst send-time error (ms). */
function against(records: RequestRecord[], n: number, speed: number, maxTokens?: number) {
  const lines = traceLines(200);
  expect(records).toHaveLength(n);
  expect(records.map(lineOf)).toEqual(Array.from({ length: n }, (_, i) => i + 1)); // file order, each line once
  const t0 = Math.min(...records.map((r) => r.sent_at_ms));
  let worst = 0;
  for (const r of records) {
    const t = lines[lineOf(r) - 1];
    expect(r.status, r.error ?? '').toBe('ok');
    expect(r.input_tokens, r.source).toBe(t.input_length); // the server's own count of the prompt
    expect(r.max_tokens).toBe(maxTokens ?? t.output_length);
    worst = Math.max(worst, Math.abs(r.sent_at_ms - t0 - (t.timestamp - lines[0].timestamp) / speed));
  }
  const ceiling = records.reduce((s, r) => s + (r.ceiling_tokens ?? 0), 0);
  const cached = records.reduce((s, r) => s + (r.cached_tokens ?? 0), 0);
  // The per-request shares add up to the trace's own ceiling, computed over the whole slice in arrival order.
  const lt = loadTrace(SAMPLE);
  expect(ceiling).toBe(cacheCeiling(lt.requests.slice(0, n), 512).cached_tokens);
  return { ceiling, cached, worst };
}

describe('open-loop trace replay', () => {
  it('Mooncake on simulate: every prompt exactly input_length tokens, sent on the timestamps, cached tokens at the ceiling with a large KV cache', async () => {
    const out = tmpDir();
    const res = await simulate({ replay: SAMPLE, endpoint: 'completions', replaySpeed: 4, concurrency: 1000, requests: 200, warmup: 0, numGpuBlocksOverride: 400_000, out, quiet: true });
    const { ceiling, cached, worst } = against(res.records, 200, 4);
    expect(worst).toBeLessThan(1); // the virtual clock sends exactly on schedule
    expect(ceiling).toBeGreaterThan(100_000);
    // 6.4M tokens of KV: nothing is evicted, so the engine serves what an unlimited cache would (stated: >= 0.95).
    expect(cached).toBeGreaterThanOrEqual(0.95 * ceiling);
    expect(cached).toBeLessThanOrEqual(ceiling);
    const w = runJson(out).workload;
    expect(w).toMatchObject({ kind: 'replay', format: 'mooncake', mode: 'open-loop', requests: 200, passes: 1, speed: 4, block_size: 512, ceiling_tokens: ceiling });
    expect(w.detected).toMatch(/Mooncake/);
    expect(w.span_s).toBeCloseTo(72 / 4, 3);
  });

  it('Mooncake on simulate with the default KV cache (455k tokens): hits fall below the ceiling as blocks are evicted', async () => {
    const res = await simulate({ replay: SAMPLE, endpoint: 'completions', replaySpeed: 4, concurrency: 1000, requests: 200, warmup: 0, out: tmpDir(), quiet: true });
    const { ceiling, cached } = against(res.records, 200, 4);
    expect(cached).toBeLessThan(0.9 * ceiling);
    expect(cached).toBeGreaterThan(0.3 * ceiling);
  });

  it.skipIf(!existsSync(CHILD))('Mooncake on the embedded server: exact prompts, send times within 100 ms of the scaled timestamps, cached >= 0.8 of the ceiling', async () => {
    const out = tmpDir();
    const speed = 20;
    const res = await run({ validate: false, replay: SAMPLE, endpoint: 'completions', replaySpeed: speed, concurrency: 512, requests: 60, warmup: 0, maxTokens: 4, simTimeScale: 10, out, quiet: true });
    expect(runJson(out).embedded_server).toBe(true);
    const { ceiling, cached, worst } = against(res.records, 60, speed, 4);
    expect(worst).toBeLessThan(100);
    expect(Math.max(...res.records.map((r) => r.schedule_lag_ms ?? 0))).toBeLessThan(100);
    expect(ceiling).toBeGreaterThan(20_000);
    expect(cached).toBeGreaterThanOrEqual(0.8 * ceiling);
  });

  it('BurstGPT and Azure CSV replay on simulate: recorded times (s, date-times), lengths, max_tokens = the response length', async () => {
    const burst = file('burst.csv', 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n10,ChatGPT,300,20,320,Conversation log\n10.5,ChatGPT,120,0,120,Conversation log\n12,GPT-4,800,7,807,API log\n');
    const b = await simulate({ replay: burst, replaySpeed: 2, concurrency: 100, warmup: 0, out: tmpDir(), quiet: true });
    expect(b.records.map((r) => [r.scheduled_at_ms - b.records[0].scheduled_at_ms, r.input_tokens, r.max_tokens, r.ceiling_tokens])).toEqual([
      [0, 300, 20, 0],
      [250, 120, 1, 0], // a recorded 0 asks for one token
      [1000, 800, 7, 0],
    ]);
    expect(b.summary.run.workload).toMatchObject({ format: 'burstgpt', requests: 3, speed: 2 });
    const azure = file('azure.csv', 'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:47.1805900,96,9\n2023-11-16 18:15:49.6805900,879,91\n');
    const a = await simulate({ replay: azure, endpoint: 'completions', concurrency: 100, warmup: 0, out: tmpDir(), quiet: true });
    const at = a.records.map((r) => r.scheduled_at_ms - a.records[0].scheduled_at_ms);
    [0, 500, 3000].forEach((t, i) => expect(at[i]).toBeCloseTo(t, 3));
    expect(a.records.map((r) => [r.input_tokens, r.max_tokens])).toEqual([[374, 44], [96, 9], [879, 91]]);
    expect(a.summary.run.workload).toMatchObject({ format: 'azure', requests: 3 });
  });

  it('--requests cuts the trace; more than it holds replays it again with fresh prompts and a fresh ceiling', () => {
    const c = (requests: number) => config({ replay: SAMPLE, endpoint: 'completions', requests, warmup: 0, replaySpeed: 1000 });
    const cut = createWorkload(c(40), tok, createRng(1), 40);
    expect(cut.size).toBe(40);
    expect(cut.arrivalTimesMs).toBeInstanceOf(Float64Array); // 8 bytes a request; the prompts are streamed when due
    const lines = traceLines(200);
    const w = createWorkload(c(450), tok, createRng(1), 450);
    expect(w.size).toBe(450);
    const times = w.arrivalTimesMs as Float64Array;
    const span = (lines[199].timestamp - lines[0].timestamp) / 1000;
    const period = span + span / 199;
    expect(times[199]).toBeCloseTo(span, 6);
    expect(times[200]).toBeCloseTo(period, 6);
    expect(times[449]).toBeCloseTo(2 * period + (lines[49].timestamp - lines[0].timestamp) / 1000, 6);
    const specs: RequestSpec[] = [];
    for (let i = 0; i < 450; i++) specs.push(w.next(i) as RequestSpec);
    expect(w.next(450)).toBeUndefined();
    expect(specs[200].inputTokens).toBe(lines[0].input_length);
    expect(specs[200].prompt).not.toBe(specs[0].prompt); // another pass: the cache the first one warmed is not hit
    expect(tok.count(specs[200].prompt as string)).toBe(lines[0].input_length);
    expect(specs[200].ceilingTokens).toBe(0); // a fresh ceiling, as for the first request of the trace
    const pass = (p: number) => specs.slice(p * 200, p * 200 + 50).map((s) => s.ceilingTokens);
    expect(pass(1)).toEqual(pass(0));
    expect(w.describe()).toMatchObject({ passes: 3, requests: 200, built: 450 });
  });

  it.skipIf(!promptWorkerFile())('prompts built ahead on the worker thread are the ones built inline: same text, ceiling share, source and time', async () => {
    const c = config({ replay: SAMPLE, endpoint: 'completions', requests: 450, warmup: 0, datasetSeed: 3 });
    const inline = createWorkload(c, tok, createRng(1), 450);
    const saved = OPEN_LOOP_TUNING.workerFrom;
    OPEN_LOOP_TUNING.workerFrom = 1;
    try {
      const w = createWorkload(c, tok, createRng(1), 450);
      for (let i = 0; i < 450; i++) {
        if (i % 5 === 0) await new Promise((r) => setTimeout(r, 3)); // time for the worker to get ahead
        const [a, b] = [inline.next(i) as RequestSpec, w.next(i) as RequestSpec];
        expect(b).not.toBeInstanceOf(Promise); // never waits: a late worker's request is built here
        expect([b.prompt, b.ceilingTokens, b.source, b.timestampMs, b.maxTokens]).toEqual([a.prompt, a.ceilingTokens, a.source, a.timestampMs, a.maxTokens]);
      }
      expect(w.next(450)).toBeUndefined();
      const d = w.describe();
      expect(d.built).toBe(450);
      expect(d.prompts_built_ahead).toBeGreaterThan(100); // most came from the worker
      expect(d.ceiling_tokens).toBe(inline.describe().ceiling_tokens);
    } finally {
      OPEN_LOOP_TUNING.workerFrom = saved;
    }
  });

  it('--max-model-len skips requests in both passes alike; a request over it is never sent', () => {
    const lines = traceLines(60);
    const w = createWorkload(config({ replay: SAMPLE, endpoint: 'completions', requests: 60, warmup: 0, maxModelLen: 16_000 }), tok, createRng(1), 60);
    const kept = lines.filter((l) => l.input_length + l.output_length <= 16_000);
    expect(kept.length).toBeLessThan(60);
    // The cut counts kept requests: the first 60 of them come from further into the file.
    const specs = Array.from({ length: w.size as number }, (_, i) => w.next(i) as RequestSpec);
    for (const s of specs) expect(s.inputTokens + s.maxTokens).toBeLessThanOrEqual(16_000);
    expect(specs.slice(0, kept.length).map((s) => s.inputTokens)).toEqual(kept.map((l) => l.input_length));
    expect(w.describe().skipped_over_max_model_len).toBeGreaterThan(0);
  });

  it('trace-only flags without --replay, and session-only flags on a trace without sessions, are refused before anything is sent', () => {
    const bad = (flags: RunConfigInput): string[] => {
      try {
        createWorkload(config(flags), tok, createRng(1), 10);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as UsageError).problems;
      }
      return [];
    };
    expect(bad({ sessions: 4, replaySpeed: 2, traceBlockSize: 64, skipBadLines: true })).toEqual([
      '--replay-speed: only applies with --replay (a trace file)',
      '--trace-block-size: only applies with --replay (a trace file)',
      '--skip-bad-lines: only applies with --replay (a trace file)',
      '--sessions: only applies with --replay (a trace file)',
    ]);
    expect(bad({ replayFormat: 'mooncake', startAtFraction: 0.5 })).toEqual([
      '--replay-format: only applies with --replay (a trace file)',
      '--start-at-fraction: only applies with --replay (a trace file)',
    ]);
    const p = bad({ replay: SAMPLE, startAtFraction: 0.5, sessionAnswers: 'live' });
    expect(p).toHaveLength(2);
    expect(p[0]).toMatch(/^--session-answers: only applies to session traces; .*mooncake-conversation-200\.jsonl is replayed open loop/);
    expect(p[1]).toMatch(/^--start-at-fraction: only applies to session traces/);
  });
});
