// Every streaming protocol against the embedded server, on both transports: exact usage, reasoning before the answer,
// heartbeats in the event list but never counted, usage stripped, non-streamed bodies.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { run } from '../src/run.js';
import { PROTOCOLS, type Protocol } from './fixtures/protocol-streams.js';
import { tmpDir } from './helpers.js';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import type { RequestRecord } from '../src/metrics/record.js';

const TRANSPORTS = ['h1', 'undici'] as const;

/** The token-carrying events of a record, in order: what TTFT, TTFAT, ITL and TPOT are computed from. */
const tokenKinds = (r: RequestRecord) => r.event_kinds.replace(/[^aR]/g, '');

describe('protocols against the embedded server', () => {
  let sim: SimServerHandle;
  beforeAll(async () => {
    // Real-time enough that every stream lasts many heartbeat intervals.
    sim = await startSimServer({ timeScale: 2, tokensPerChunk: 2, faults: { heartbeat: { every: 1, intervalMs: 3 } } });
  });
  afterAll(() => sim.close());

  const go = (backend: Protocol, transport: 'h1' | 'undici', extra: Record<string, unknown> = {}) =>
    run({ baseUrl: sim.baseUrl, backend, requests: 3, concurrency: 3, inputTokens: 32, outputTokens: 12, out: tmpDir(), quiet: true, transport, serverMetrics: false, ...extra });

  it.each(TRANSPORTS)('each protocol gets exact usage, reasoning before the answer and uncounted pings (%s)', async (transport) => {
    for (const p of PROTOCOLS) {
      const res = await go(p, transport, { model: `${sim.models[0]}-reasoning` });
      for (const r of res.records) {
        expect(r.status, `${p}: ${r.error}`).toBe('ok');
        expect(r.output_tokens).toBe(12);
        expect(r.input_tokens).toBe(r.expected_input_tokens);
        expect(r.token_source).toBe('usage');
        expect(r.ttfat_ms!).toBeGreaterThan(r.ttft_ms!);
        const kinds = tokenKinds(r);
        expect(kinds, p).toMatch(/^R+a+$/);
        // Two tokens per chunk: 12 tokens in 6 token-carrying events, whatever the protocol.
        expect(kinds.length).toBe(6);
        expect(r.itl_ms).toHaveLength(5);
      }
      // The sim's heartbeat: an SSE comment for the OpenAI protocols, an `event: ping` for Anthropic; in the list, never counted.
      const beats = res.records.map((r) => r.event_kinds.replace(/[^ch]/g, '')).join('');
      expect(beats, p).toMatch(p === 'anthropic-messages' ? /^h+$/ : /^c+$/);
      for (const r of res.records) expect(r.chunks).toBe(r.event_kinds.replace(/[ch]/g, '').length);
    }
  });

  it.each(TRANSPORTS)('non-streamed responses of each protocol are read whole: TTFT = E2E, exact usage (%s)', async (transport) => {
    for (const p of PROTOCOLS) {
      const res = await go(p, transport, { requests: 1, concurrency: 1, stream: false, model: `${sim.models[0]}-reasoning` });
      const r = res.records[0];
      expect(r.status, `${p}: ${r.error}`).toBe('ok');
      expect(r.streamed).toBe(false);
      expect(r.ttft_ms).toBe(r.e2e_ms);
      expect(r.output_tokens).toBe(12);
      expect(r.input_tokens).toBe(r.expected_input_tokens);
      expect(r.reasoning_chars).toBeGreaterThan(0);
      expect(r.answer_chars).toBeGreaterThan(0);
    }
  });

  it('usage absent (a gateway that strips it): counted with the tokenizer, same counts as with usage', async () => {
    for (const p of PROTOCOLS) {
      const res = await go(p, 'h1', { requests: 1, concurrency: 1, extraBody: { stream_options: { include_usage: false } } });
      const r = res.records[0];
      expect(r.status, `${p}: ${r.error}`).toBe('ok');
      expect(r.token_source, p).toBe('tokenizer');
      expect(r.output_tokens).toBe(12);
    }
  });
});
