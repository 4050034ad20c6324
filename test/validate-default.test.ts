// The validation ladder as the first step of every command that sends (issue 32 item 17): on by default, once per
// command (--runs, sweep, --short-baseline), outside the measurement, transient failures retried, hard ones exit 4.
import { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach, vi } from 'vitest';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';
import { LADDER_MAX_TOKENS, LADDER_RETRIES, LADDER_STAGE_CONCURRENCY } from '../src/drivers/validate-ladder.js';

const LADDER = 1 + LADDER_STAGE_CONCURRENCY;
// A healthy streamed answer of exactly LADDER_MAX_TOKENS tokens with usage: every check of the ladder passes.
const good: Script = { steps: [{ at: 0, write: Array.from({ length: LADDER_MAX_TOKENS }, (_, i) => chatChunk({ content: ` w${i}` })).join('') + usageChunk(40, LADDER_MAX_TOKENS) + DONE }] };
const status = (code: number, body: string, headers: Record<string, string> = {}): Script => ({ status: code, headers: { 'content-type': 'application/json', ...headers }, steps: [{ at: 0, write: body }] });

/** The ladder's probes among a server's bodies: its prompt opens with its own marker. */
const isLadder = (b: unknown) => JSON.stringify(b).includes('[tokenflood validation ladder]');
const ladderBodies = (s: ScriptServer, from = 0) => s.bodies.slice(from).filter(isLadder).length;
const loadBodies = (s: ScriptServer, from = 0) => s.bodies.slice(from).filter((b) => !isLadder(b)).length;
const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));
const lines = (dir: string) => readFileSync(join(dir, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean).length;

// The ladder's stderr lines go to the process's stderr (as before the load's own output starts).
let stderr = '';
beforeEach(() => {
  stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
});
afterEach(() => vi.restoreAllMocks());

let healthy: ScriptServer;
beforeAll(async () => {
  healthy = await startScriptServer(() => good);
});
afterAll(async () => healthy?.close());

describe('the ladder by default', () => {
  it('a plain run climbs it first: one stderr line per step, run.validation, and nothing of it in the measurement', async () => {
    const out = tmpDir();
    const c = capture();
    const n0 = healthy.bodies.length;
    expect(await main(['run', '--base-url', healthy.baseUrl, '--requests', '3', '--input-tokens', '32', '--output-tokens', '4', '--out', out, '--json'], c.io), c.err).toBe(0);
    expect(stderr).toMatch(/tokenflood: validate 1\/2 one request: PASS \(\d+ ms; http pass, shape pass, streaming pass, usage pass, output_tokens pass, input_tokens pass\)/);
    expect(stderr).toMatch(/tokenflood: validate 2\/2 4 concurrent requests: PASS/);
    expect(ladderBodies(healthy, n0)).toBe(LADDER);
    expect(loadBodies(healthy, n0)).toBe(3);
    const v = json(out, 'run.json').validation;
    expect(v).toMatchObject({ verdict: 'pass', steps: [{ step: 'single', requests: 1, retries: 0 }, { step: 'stage', requests: LADDER_STAGE_CONCURRENCY, retries: 0 }] });
    expect(v.reused).toBeUndefined();
    const s = JSON.parse(c.out);
    expect(s.run.validation.verdict).toBe('pass');
    expect(s.requests.total).toBe(3);
    expect(lines(out)).toBe(3);
  });

  it('the terminal says where requests go before the ladder climbs (stdout and stderr into one file, in order)', () => {
    const dir = tmpDir();
    const file = join(dir, 'both.txt');
    const fd = openSync(file, 'w');
    try {
      const cli = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
      const r = spawnSync(process.execPath, [cli, 'run', '--requests', '2', '--concurrency', '1', '--input-tokens', '32', '--output-tokens', '4', '--out', join(dir, 'r')], { stdio: ['ignore', fd, fd], timeout: 60_000 });
      expect(r.status).toBe(0);
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(file, 'utf8');
    const at = (s: string) => text.indexOf(s);
    expect(at('started the embedded simulated server at'), text).toBeGreaterThanOrEqual(0);
    expect(at('started the embedded simulated server at')).toBeLessThan(at('validate 1/2'));
    expect(at('validate 2/2')).toBeLessThan(at('model llama-3.1-8b, results in'));
  }, 60_000);

  it('against the embedded server: its /metrics histograms in the summary count the workload only, not the ladder', async () => {
    const out = tmpDir();
    const c = capture();
    expect(await main(['run', '--requests', '6', '--concurrency', '2', '--input-tokens', '32', '--output-tokens', '5', '--out', out, '--json'], c.io), c.err).toBe(0);
    const s = JSON.parse(c.out);
    expect(s.run.validation.verdict).toBe('pass');
    expect(s.requests.total).toBe(6);
    // The "before" scrape is taken after the ladder: 6 requests seen by the server, and 6 × (5 − 1) inter-token gaps.
    expect(s.server.times.e2e.count).toBe(6);
    expect(s.server.times.itl.count).toBe(6 * 4);
  });

  it('--no-validate skips it: no line, nothing sent but the load, run.validation says skipped; a config file key does the same', async () => {
    const out = tmpDir();
    const c = capture();
    const n0 = healthy.bodies.length;
    expect(await main(['run', '--base-url', healthy.baseUrl, '--no-validate', '--requests', '2', '--out', out, '--quiet'], c.io), c.err).toBe(0);
    expect(stderr).not.toContain('validate 1/2');
    expect(healthy.bodies.length - n0).toBe(2);
    expect(json(out, 'run.json').validation).toEqual({ verdict: 'skipped', reason: '--no-validate', steps: [] });
    expect(json(out, 'run.json').config.validate).toBe(false);

    const cfg = join(tmpDir(), 'run.yaml');
    writeFileSync(cfg, `base-url: ${healthy.baseUrl}\nrequests: 2\nvalidate: false\n`);
    const out2 = tmpDir();
    const n1 = healthy.bodies.length;
    expect(await main(['run', '--config', cfg, '--out', out2, '--quiet'], capture().io)).toBe(0);
    expect(healthy.bodies.length - n1).toBe(2);
    expect(json(out2, 'run.json').validation.verdict).toBe('skipped');
    // --validate (the default, still accepted) overrides the file's `validate: false`.
    const out3 = tmpDir();
    const n2 = healthy.bodies.length;
    expect(await main(['run', '--config', cfg, '--validate', '--out', out3, '--quiet'], capture().io)).toBe(0);
    expect(ladderBodies(healthy, n2)).toBe(LADDER);
    expect(json(out3, 'run.json').validation.verdict).toBe('pass');
  });
});

describe('once per command', () => {
  it('a sweep climbs it once, before its first point; later points carry the result marked reused', async () => {
    const out = tmpDir();
    const n0 = healthy.bodies.length;
    expect(await main(['sweep', '--base-url', healthy.baseUrl, '--concurrency', '1,2,3', '--requests', '3', '--out', out, '--quiet'], capture().io)).toBe(0);
    expect(ladderBodies(healthy, n0)).toBe(LADDER);
    expect(loadBodies(healthy, n0)).toBe(9);
    expect(stderr.match(/validate 1\/2 one request/g)).toHaveLength(1);
    const sweep = json(out, 'sweep.json');
    const v = sweep.points.map((p: { dir: string }) => json(join(out, p.dir), 'run.json').validation);
    expect(v.map((x: { verdict: string; reused?: boolean }) => [x.verdict, x.reused ?? false])).toEqual([['pass', false], ['pass', true], ['pass', true]]);
  });

  it('run --runs 2 climbs it once, before the first run', async () => {
    const out = tmpDir();
    const n0 = healthy.bodies.length;
    expect(await main(['run', '--base-url', healthy.baseUrl, '--runs', '2', '--cooldown', '0', '--requests', '2', '--out', out, '--quiet'], capture().io)).toBe(0);
    expect(ladderBodies(healthy, n0)).toBe(LADDER);
    expect(loadBodies(healthy, n0)).toBe(4);
    expect(json(join(out, 'run-1'), 'run.json').validation.reused).toBeUndefined();
    expect(json(join(out, 'run-2'), 'run.json').validation).toMatchObject({ verdict: 'pass', reused: true });
  });

  it('--short-baseline (two runs) climbs it once', async () => {
    const out = tmpDir();
    const n0 = healthy.bodies.length;
    const code = await main(['run', '--base-url', healthy.baseUrl, '--short-baseline', '4k', '--input-tokens', '64', '--requests', '2', '--out', out, '--quiet'], capture().io);
    expect(code).toBe(0);
    expect(ladderBodies(healthy, n0)).toBe(LADDER);
    expect(json(out, 'run.json').validation).toMatchObject({ verdict: 'pass', reused: true });
  });

  it('a shard other than 0 leaves it to shard 0', async () => {
    const n0 = healthy.bodies.length;
    const out1 = tmpDir();
    expect(await main(['run', '--base-url', healthy.baseUrl, '--shard', '1/2', '--concurrency', '2', '--requests', '2', '--out', out1, '--quiet'], capture().io)).toBe(0);
    expect(ladderBodies(healthy, n0)).toBe(0);
    expect(json(out1, 'run.json').validation).toMatchObject({ verdict: 'skipped', reason: expect.stringMatching(/^shard 1\/2: shard 0 climbs/) });
    const out0 = tmpDir();
    expect(await main(['run', '--base-url', healthy.baseUrl, '--shard', '0/2', '--concurrency', '2', '--requests', '2', '--out', out0, '--quiet'], capture().io)).toBe(0);
    expect(ladderBodies(healthy, n0)).toBe(LADDER);
  });
});

describe('failures', () => {
  it('transient failures (HTTP 503 with Retry-After, a reset connection) are retried and the run goes on', async () => {
    // The first request gets a 503, the second a reset: the single step is sent three times, then passes.
    const flaky = await startScriptServer((_b, n) => (n === 0 ? status(503, '{"error":"overloaded"}', { 'retry-after': '0' }) : n === 1 ? { steps: [{ at: 0, destroy: true }] } : good));
    try {
      const out = tmpDir();
      expect(await main(['run', '--base-url', flaky.baseUrl, '--requests', '3', '--out', out, '--quiet'], capture().io)).toBe(0);
      expect(flaky.bodies.length).toBe(2 + LADDER + 3);
      const v = json(out, 'run.json').validation;
      expect(v.verdict).toBe('pass');
      expect(v.steps[0]).toMatchObject({ step: 'single', requests: 1, retries: 2, verdict: 'pass' });
      expect(v.steps[0].retried[0]).toMatch(/^HTTP 503/);
      expect(v.steps[0].retried[1]).toMatch(/^(no response|HTTP 200, then the connection was lost)/);
      expect(v.steps[1].retries).toBe(0);
      expect(stderr).toMatch(/validate 1\/2 one request: PASS \(\d+ ms; .*; 2 sent again after a transient failure \(HTTP 503/);
      expect(lines(out)).toBe(3);
    } finally {
      await flaky.close();
    }
  });

  it('a server that keeps failing transiently: exit 4 after 3 retries, no load sent, nothing written', async () => {
    const down = await startScriptServer(() => status(502, '{"error":"bad gateway"}'));
    try {
      const out = join(tmpDir(), 'r');
      const c = capture();
      expect(await main(['run', '--base-url', down.baseUrl, '--requests', '20', '--out', out], c.io)).toBe(4);
      expect(down.bodies.length).toBe(1 + LADDER_RETRIES);
      expect(down.bodies.every(isLadder)).toBe(true);
      expect(c.err).toMatch(/validation ladder: the single request failed after 3 retries \(http: HTTP 502: .*bad gateway.*\); no load was sent .*--no-validate skips the ladder/);
      expect(existsSync(out)).toBe(false);
    } finally {
      await down.close();
    }
  });

  it('a hard failure (401, a stage answer over max_tokens) exits 4 at once, without retries or load', async () => {
    // The 401 echoes the key, as OpenAI's does: the exit-4 message and --json quote the body with the key redacted.
    const denied = await startScriptServer(() => status(401, '{"error":"Incorrect API key provided: sk-ladder-secret-0123456789"}'));
    // Good on the single request, then over max_tokens in the stage.
    const overlong = await startScriptServer((_b, n) => (n === 0 ? good : { steps: [{ at: 0, write: chatChunk({ content: 'a' }) + chatChunk({ content: 'b' }) + usageChunk(40, 99) + DONE }] }));
    try {
      const c = capture();
      expect(await main(['run', '--base-url', denied.baseUrl, '--api-key', 'sk-ladder-secret-0123456789', '--requests', '20', '--out', join(tmpDir(), 'r'), '--json'], c.io)).toBe(4);
      expect(c.out + c.err + stderr).not.toContain('sk-ladder-secret-0123456789');
      expect(c.err).toContain('Incorrect API key provided: sk-...6789');
      expect(denied.bodies.length).toBe(1);
      expect(JSON.parse(c.out).validation.steps[0]).toMatchObject({ step: 'single', verdict: 'fail', retries: 0 });
      expect(c.err).toMatch(/the single request failed \(http: HTTP 401/);

      // --overwrite over an earlier run: a ladder that fails leaves that run's files as they were.
      const kept = tmpDir();
      expect(await main(['run', '--base-url', healthy.baseUrl, '--no-validate', '--requests', '1', '--out', kept, '--quiet'], capture().io)).toBe(0);
      const before = readFileSync(join(kept, 'run.json'), 'utf8');
      expect(await main(['run', '--base-url', denied.baseUrl, '--requests', '2', '--out', kept, '--overwrite', '--quiet'], capture().io)).toBe(4);
      expect(readFileSync(join(kept, 'run.json'), 'utf8')).toBe(before);
      expect(readFileSync(join(kept, 'requests.jsonl'), 'utf8').length).toBeGreaterThan(0);

      const c2 = capture();
      const out = join(tmpDir(), 'r');
      expect(await main(['run', '--base-url', overlong.baseUrl, '--requests', '20', '--out', out], c2.io)).toBe(4);
      expect(overlong.bodies.length).toBe(LADDER);
      expect(c2.err).toMatch(/the stage of 4 concurrent requests failed \(output_tokens: 99 tokens for max_tokens 8/);
      expect(existsSync(out)).toBe(false);
    } finally {
      await denied.close();
      await overlong.close();
    }
  });

  it('an --out that holds a run is bad input found before the ladder: exit 2, nothing sent', async () => {
    const out = tmpDir();
    expect(await main(['run', '--base-url', healthy.baseUrl, '--no-validate', '--requests', '1', '--out', out, '--quiet'], capture().io)).toBe(0);
    const n0 = healthy.bodies.length;
    const c = capture();
    expect(await main(['run', '--base-url', healthy.baseUrl, '--requests', '1', '--out', out, '--quiet'], c.io)).toBe(2);
    expect(c.err).toContain(`--out: ${out} already holds a run`);
    expect(healthy.bodies.length - n0).toBe(0);
  });

  it('a sweep whose ladder fails exits 4 before its first point', async () => {
    const denied = await startScriptServer(() => status(403, '{"error":"forbidden"}'));
    try {
      const c = capture();
      const out = tmpDir();
      expect(await main(['sweep', '--base-url', denied.baseUrl, '--concurrency', '1,2', '--requests', '3', '--out', out, '--quiet'], c.io)).toBe(4);
      expect(denied.bodies.length).toBe(1);
      expect(existsSync(join(out, 'sweep.json'))).toBe(false);
    } finally {
      await denied.close();
    }
  });
});
