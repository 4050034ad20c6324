// Throughput in the practice's other units: request and response MB/s from the bodies' bytes, and samples/s.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const lines = (dir: string) => readFileSync(join(dir, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('bytes and samples per second', () => {
  it('exact bytes: request_bytes is the body sent, response_bytes the body received; MB/s = Σ bytes / 10⁶ / duration_s', async () => {
    const body = JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'hello there' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } });
    server = await startScriptServer(() => ({ headers: { 'content-type': 'application/json' }, steps: [{ at: 5, write: body }] }));
    const dir = join(tmpDir(), 'run');
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--no-stream', '--requests', '6', '--concurrency', '2', '--input-tokens', '50', '--output-tokens', '4', '--no-server-metrics', '--out', dir], c.io), c.err).toBe(0);
    const recs = lines(dir);
    // What the server received, byte for byte, is what each record says it sent.
    const sent = server.rawBodies.map((b) => b.length).sort((a, b) => a - b);
    expect(recs.map((r) => r.request_bytes).sort((a: number, b: number) => a - b)).toEqual(sent);
    expect(recs.every((r) => r.response_bytes === Buffer.byteLength(body))).toBe(true);
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(s.request_bytes).toBe(sent.reduce((a, b) => a + b, 0));
    expect(s.response_bytes).toBe(6 * Buffer.byteLength(body));
    expect(s.request_mb_per_s).toBeCloseTo(s.request_bytes / 1e6 / s.duration_s, 12);
    expect(s.response_mb_per_s).toBeCloseTo(s.response_bytes / 1e6 / s.duration_s, 12);
    // One ok request = one sample.
    expect(s.samples_per_s).toBe(s.request_throughput);
    const csv = readFileSync(join(dir, 'stats.csv'), 'utf8').split('\n');
    const head = csv[0].split(',');
    const row = csv[1].split(',');
    expect(Number(row[head.indexOf('request_mb_s')])).toBeCloseTo(s.request_mb_per_s, 5);
    expect(Number(row[head.indexOf('response_mb_s')])).toBeCloseTo(s.response_mb_per_s, 5);
    expect(Number(row[head.indexOf('samples_s')])).toBeCloseTo(s.samples_per_s, 5);
    expect(c.out).toMatch(/data: [\d.]+ samples\/s, request bodies [\d.]+ MB\/s, response bodies [\d.]+ MB\/s/);
  }, 60_000);

  it('on the sim: longer prompts send more request bytes, longer answers stream more response bytes', async () => {
    const runOne = async (name: string, inTok: string, outTok: string) => {
      const dir = join(tmpDir(), name);
      const c = capture();
      expect(await main(['run', '--no-validate', '--input-tokens', inTok, '--output-tokens', outTok, '--requests', '8', '--concurrency', '4', '--sim-time-scale', '50', '--no-server-metrics', '--out', dir], c.io), c.err).toBe(0);
      return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    };
    const small = await runOne('small', '200', '20');
    const big = await runOne('big', '2000', '200');
    const per = (s: { request_bytes: number; response_bytes: number; requests: { total: number } }) => [s.request_bytes / s.requests.total, s.response_bytes / s.requests.total];
    const [reqS, respS] = per(small);
    const [reqB, respB] = per(big);
    // About 4 bytes of English per token in the body, so 10× the tokens is well over 5× the bytes.
    expect(reqB / reqS).toBeGreaterThan(5);
    expect(respB / respS).toBeGreaterThan(5);
    expect(reqS).toBeGreaterThan(200);
  }, 60_000);
});
