// The validation ladder (on by default; --validate is the explicit spelling): passes against the embedded server, stops a bad server before the load (exit 4).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { LADDER_MAX_TOKENS, LADDER_STAGE_CONCURRENCY } from '../src/drivers/validate-ladder.js';

// One content chunk only, and more completion tokens than asked: two failed checks.
const oneChunk: Script = { steps: [{ at: 0, write: chatChunk({ content: 'hello there everyone' }) + usageChunk(30, 40) + DONE }] };
// A proper stream that stops early under ignore_eos: a warning, not a failure.
const early: Script = { steps: [{ at: 0, write: chatChunk({ content: 'a' }) }, { at: 1, write: chatChunk({ content: 'b' }) + usageChunk(30, 2) + DONE }] };
let bad: ScriptServer;
let short: ScriptServer;
beforeAll(async () => {
  bad = await startScriptServer(() => oneChunk);
  short = await startScriptServer(() => early);
});
afterAll(async () => {
  await bad?.close();
  await short?.close();
});

describe('run --validate', () => {
  it('against the embedded server: both steps pass, run.json keeps the verdicts, then the load runs', async () => {
    const out = tmpDir();
    const c = capture();
    expect(await main(['run', '--validate', '--requests', '3', '--input-tokens', '32', '--output-tokens', '4', '--out', out, '--json'], c.io), c.err).toBe(0);
    const v = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).validation;
    expect(v.verdict).toBe('pass');
    expect(v.steps.map((s: { step: string; requests: number }) => [s.step, s.requests])).toEqual([['single', 1], ['stage', LADDER_STAGE_CONCURRENCY]]);
    const checks = Object.fromEntries(v.steps[0].checks.map((x: { check: string; verdict: string; detail: string }) => [x.check, x]));
    expect(Object.keys(checks)).toEqual(['http', 'shape', 'streaming', 'usage', 'output_tokens', 'input_tokens']);
    expect(checks.output_tokens.detail).toBe(`${LADDER_MAX_TOKENS} of max_tokens ${LADDER_MAX_TOKENS} (ignore_eos honoured)`);
    // The summary printed with --json carries them too (summary.run), and the load itself is untouched: 3 requests.
    const s = JSON.parse(c.out);
    expect(s.run.validation.verdict).toBe('pass');
    expect(s.requests.total).toBe(3);
  });

  it('a server that does not stream or honour max_tokens: exit 4 after the first step, nothing more sent, --json gives the verdicts', async () => {
    const out = tmpDir();
    const c = capture();
    expect(await main(['run', '--base-url', bad.baseUrl, '--validate', '--requests', '50', '--out', join(out, 'r'), '--json'], c.io)).toBe(4);
    expect(bad.bodies).toHaveLength(1); // the ladder's one request: no stage, no load
    expect((bad.bodies[0] as { max_tokens: number }).max_tokens).toBe(LADDER_MAX_TOKENS);
    expect(c.err).toMatch(/validation ladder: the single request failed \(streaming: 1 content chunk\(s\): a stream must carry more than one; output_tokens: 40 tokens for max_tokens 8: the server does not honour max_tokens\); no load was sent/);
    const v = JSON.parse(c.out).validation;
    expect(v.verdict).toBe('fail');
    expect(v.steps).toHaveLength(1);
    expect(existsSync(join(out, 'r'))).toBe(false);
  });

  it('a server that stops early under ignore_eos is a warning: the ladder goes on and the run runs', async () => {
    const out = tmpDir();
    const c = capture();
    const n = short.bodies.length;
    expect(await main(['run', '--base-url', short.baseUrl, '--validate', '--requests', '2', '--output-tokens', '2', '--out', out, '--json'], c.io), c.err).toBe(0);
    expect(short.bodies.length - n).toBe(1 + LADDER_STAGE_CONCURRENCY + 2);
    const v = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).validation;
    expect(v.verdict).toBe('warn');
    expect(v.steps[1].checks.find((x: { check: string }) => x.check === 'output_tokens')).toMatchObject({ verdict: 'warn', detail: expect.stringMatching(/^2 of max_tokens 8 with ignore_eos: the server stops early/) });
  });
});
