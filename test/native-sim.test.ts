// Native engine backends against the embedded sim server: each protocol by path, its engine timings carried exactly.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { run } from '../src/run.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { tmpDir } from './helpers.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rebuildSummary } from '../src/cli/report.js';

describe('native backends against the embedded sim server', () => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    sim = await startSimServer({ timeScale: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });

  for (const backend of ['ollama', 'ollama-generate', 'llamacpp', 'tgi', 'triton']) {
    it(`${backend}: every request ok, counts agree with the server, server_* fields carried`, async () => {
      const res = await run({ baseUrl: sim.baseUrl, backend, requests: 4, concurrency: 2, inputTokens: 24, outputTokens: 6, out: tmpDir(), quiet: true, ignoreEos: true });
      expect(res.records.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
      for (const r of res.records) {
        expect(r.input_tokens).toBe(r.expected_input_tokens);
        expect(r.output_tokens).toBeGreaterThan(0);
        expect(r.ttft_ms!).toBeGreaterThan(0);
        if (backend === 'triton') {
          expect(r.token_source).toBe('tokenizer');
          expect(r.server_eval_tokens).toBeUndefined();
          continue;
        }
        expect(r.token_source).toBe('usage');
        expect(r.server_eval_tokens).toBe(r.output_tokens);
        if (backend === 'tgi') continue;
        // The sim reports its engine's step times: total = queue + prefill + decode, so prefill + decode ≤ total.
        expect(r.server_prompt_eval_ms!).toBeGreaterThanOrEqual(0);
        expect(r.server_eval_ms!).toBeGreaterThanOrEqual(0);
        if (r.server_total_ms !== undefined) expect(r.server_prompt_eval_ms! + r.server_eval_ms!).toBeLessThanOrEqual(r.server_total_ms + 1e-6);
        if (r.server_eval_ms! > 0) expect(r.server_predicted_per_s!).toBeCloseTo((r.server_eval_tokens! * 1000) / r.server_eval_ms!, 2);
      }
      if (backend !== 'triton') expect(res.summary.server_timings?.server_eval_tokens?.count).toBe(4);
    });
  }

  it('the sim reports its engine timings exactly: ollama (ns) and llama.cpp (ms) agree to the nanosecond on identical solo requests', async () => {
    const solo = await startSimServer({ timeScale: 1, prefixCaching: false });
    try {
      const opts = { baseUrl: solo.baseUrl, requests: 3, concurrency: 1, inputTokens: 40, outputTokens: 6, ignoreEos: true, seed: 7, quiet: true };
      const a = await run({ ...opts, backend: 'ollama-generate', out: tmpDir() });
      const b = await run({ ...opts, backend: 'llamacpp', out: tmpDir() });
      for (let i = 0; i < 3; i++) {
        const [x, y] = [a.records[i], b.records[i]];
        expect([x.status, y.status]).toEqual(['ok', 'ok']);
        expect(x.server_prompt_tokens).toBe(y.server_prompt_tokens);
        expect(x.server_eval_tokens).toBe(y.server_eval_tokens);
        expect(Math.abs(x.server_prompt_eval_ms! - y.server_prompt_eval_ms!)).toBeLessThanOrEqual(1e-6);
        expect(Math.abs(x.server_eval_ms! - y.server_eval_ms!)).toBeLessThanOrEqual(1e-6);
        expect(x.server_prompt_eval_ms!).toBeGreaterThan(0);
      }
    } finally {
      await solo.close();
    }
  });

  for (const backend of ['ollama', 'llamacpp']) {
    it(`${backend} --no-stream: one JSON body with the counts and timings; \`report\` rebuilds the same summary`, async () => {
      const out = tmpDir();
      const res = await run({ baseUrl: sim.baseUrl, backend, stream: false, requests: 3, concurrency: 1, inputTokens: 16, outputTokens: 6, out, quiet: true, ignoreEos: true, serverMetrics: false });
      for (const r of res.records) {
        expect([r.status, r.streamed, r.token_source]).toEqual(['ok', false, 'usage']);
        expect(r.server_eval_tokens).toBe(r.output_tokens);
        expect(r.server_eval_ms!).toBeGreaterThanOrEqual(0);
      }
      expect(res.summary.server_timings?.server_eval_ms?.count).toBe(3);
      const onDisk = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
      expect(onDisk.server_timings).toEqual(JSON.parse(JSON.stringify(res.summary.server_timings)));
      expect(JSON.parse(JSON.stringify(rebuildSummary(out).summary))).toEqual(onDisk);
    });
  }

  it('ollama keep-alive blank lines (the sim heartbeat fault) are heartbeat events, never tokens; a dropped stream is a network_error', async () => {
    const faulty = await startSimServer({ timeScale: 1, faults: { heartbeat: { every: 1, intervalMs: 2 }, drop: { every: 4, afterTokens: 3 } } });
    try {
      const res = await run({ baseUrl: faulty.baseUrl, backend: 'ollama', requests: 8, concurrency: 2, inputTokens: 16, outputTokens: 12, out: tmpDir(), quiet: true, ignoreEos: true, serverMetrics: false });
      const ok = res.records.filter((r) => r.status === 'ok');
      expect(res.records.filter((r) => r.status === 'network_error')).toHaveLength(2);
      expect(ok).toHaveLength(6);
      expect(ok.some((r) => r.event_kinds.includes('c'))).toBe(true);
      for (const r of ok) {
        expect(r.output_tokens).toBe(r.server_eval_tokens);
        // Heartbeats are timed events but carry no text: the token-carrying events are exactly the a/R ones.
        expect(r.chunks).toBe(r.event_kinds.replace(/c/g, '').length);
        expect(r.itl_ms).toHaveLength(r.event_kinds.replace(/[^aR]/g, '').length - 1);
      }
    } finally {
      await faulty.close();
    }
  });

  it('ollama with the reasoning model: thinking first (TTFT), then the answer (TTFAT)', async () => {
    const res = await run({ baseUrl: sim.baseUrl, backend: 'ollama', model: sim.models[1], requests: 2, concurrency: 1, inputTokens: 16, outputTokens: 8, out: tmpDir(), quiet: true, ignoreEos: true });
    for (const r of res.records) {
      expect(r.status).toBe('ok');
      expect(r.reasoning_chars).toBeGreaterThan(0);
      expect(r.answer_chars).toBeGreaterThan(0);
      expect(r.event_kinds.indexOf('R')).toBeLessThan(r.event_kinds.indexOf('a'));
      expect(r.ttfat_ms!).toBeGreaterThan(r.ttft_ms!);
    }
  });
});
