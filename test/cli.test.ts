// The CLI as a user meets it: exit codes, one clear message for bad input, --json on stdout, nothing sent on error.
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: ScriptServer;
beforeAll(async () => {
  server = await startScriptServer(() => ({
    steps: [{ at: 0, write: chatChunk({ role: 'assistant', content: '' }) }, { at: 5, write: chatChunk({ content: 'a' }) + chatChunk({ content: 'b' }) + usageChunk(8, 2) + DONE }],
  }));
});
afterAll(() => server.close());

describe('tokenflood CLI', () => {
  const bad: [string[], RegExp][] = [
    [['run', '--concurrency', '0'], /--concurrency: .*/],
    [['run', '--concurrency', 'many'], /--concurrency/],
    [['run', '--rate', '-1'], /--rate/],
    [['run', '--endpoint', 'embeddings'], /--endpoint/],
    [['run', '--duration', 'forever'], /--duration: expected a duration/],
    [['run', '--base-url', 'not a url'], /--base-url/],
    [['run', '--base-url', 'ftp://x/v1'], /--base-url/],
    [['run', '--header', 'NoColonHere'], /--header: expected "Name: value"/],
    [['run', '--burstiness', '0.5'], /--burstiness: only applies with --arrival gamma/],
    [['run', '--arrival', 'poisson'], /--arrival: only applies with --rate/],
    [['run', '--input-tokens', '0'], /--input-tokens/],
    [['run', '--tokenizer', '/nonexistent/tok'], /--tokenizer/],
    [['run', '--bogus'], /unknown option/],
    [['run', '--shard', '3/3'], /--shard: shard index 3 is not below the count 3/],
    [['run', '--shard', 'two'], /--shard: expected I\/N/],
    [['run', '--shard', '0/3'], /--shard: --concurrency 1 leaves shards without a stream/],
    [['run', '--start-at', 'tomorrow'], /--start-at: expected an ISO 8601 time/],
  ];
  for (const [args, re] of bad) {
    it(`rejects ${args.slice(1).join(' ')} with exit 2 and a message naming the problem`, async () => {
      const c = capture();
      const argv = args.includes('--base-url') ? [...args, '--quiet'] : [...args, '--base-url', server.baseUrl, '--quiet'];
      const before = server.bodies.length;
      const code = await main(argv, c.io);
      expect(server.bodies.length).toBe(before); // nothing sent
      expect(code).toBe(2);
      expect(c.err).toMatch(re);
    });
  }

  it('reports several problems at once', async () => {
    const c = capture();
    const code = await main(['run', '--no-validate', '--concurrency', '0', '--rate', 'x', '--endpoint', 'nope', '--base-url', server.baseUrl], c.io);
    expect(code).toBe(2);
    expect(c.err).toMatch(/--concurrency/);
    expect(c.err).toMatch(/--rate/);
    expect(c.err).toMatch(/--endpoint/);
  });

  it('an unreachable server gives exit 2, one clear message, and sends nothing', async () => {
    const c = capture();
    const out = join(tmpDir(), 'r');
    const code = await main(['run', '--no-validate', '--base-url', 'http://127.0.0.1:9/v1', '--requests', '3', '--out', out, '--quiet'], c.io);
    expect(code).toBe(2);
    expect(c.err).toMatch(/cannot reach the server at http:\/\/127\.0\.0\.1:9\/v1/);
    expect(c.err.trim().split('\n')).toHaveLength(1);
    expect(existsSync(out)).toBe(false);
  });

  it('a bad config-file key is an error with a did-you-mean hint', async () => {
    const dir = tmpDir();
    const cfg = join(dir, 'c.yaml');
    writeFileSync(cfg, 'concurency: 4\nrequests: 2\n');
    const c = capture();
    const code = await main(['run', '--no-validate', '--config', cfg, '--base-url', server.baseUrl], c.io);
    expect(code).toBe(2);
    expect(c.err).toMatch(/unknown key "concurency" \(did you mean "concurrency"\?\)/);
    expect(server.bodies.length).toBeGreaterThanOrEqual(0);
  });

  it('--json prints exactly one JSON document on stdout; the API key is never written', async () => {
    const c = capture();
    const out = join(tmpDir(), 'run');
    const key = 'sk-test-SECRET-0123456789abcdef';
    const before = server.bodies.length;
    const code = await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '3', '--concurrency', '2', '--out', out, '--json', '--api-key', key], c.io);
    expect(code).toBe(0);
    const doc = JSON.parse(c.out);
    expect(doc.requests.ok).toBe(3);
    expect(doc.run.config.api_key).toBe('sk-...cdef');
    expect(server.bodies.length - before).toBe(3);
    for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8')).not.toContain('SECRET');
    expect(c.out + c.err).not.toContain('SECRET');
  });

  it('refuses to overwrite an earlier run unless --overwrite', async () => {
    const out = join(tmpDir(), 'run');
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '1', '--out', out, '--quiet'], capture().io)).toBe(0);
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '1', '--out', out, '--quiet'], c.io)).toBe(2);
    expect(c.err).toMatch(/already holds a run/);
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '1', '--out', out, '--quiet', '--overwrite'], capture().io)).toBe(0);
  });

  it('--overwrite with a bad dataset leaves the earlier run untouched', async () => {
    const out = join(tmpDir(), 'run');
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '2', '--out', out, '--quiet'], capture().io)).toBe(0);
    const before = readFileSync(join(out, 'requests.jsonl'), 'utf8');
    const c = capture();
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--dataset', join(out, 'nope.jsonl'), '--out', out, '--overwrite', '--quiet'], c.io)).toBe(2);
    expect(c.err).toMatch(/--dataset/);
    expect(readFileSync(join(out, 'requests.jsonl'), 'utf8')).toBe(before);
  });

  it('`report` survives a corrupt run.json and non-object lines, with warnings', async () => {
    const out = join(tmpDir(), 'run');
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '2', '--out', out, '--quiet'], capture().io)).toBe(0);
    writeFileSync(join(out, 'run.json'), '{broken');
    writeFileSync(join(out, 'requests.jsonl'), readFileSync(join(out, 'requests.jsonl'), 'utf8') + 'null\n');
    const c = capture();
    expect(await main(['report', out, '--json', '--no-write'], c.io)).toBe(0);
    expect(c.err).toMatch(/run\.json is unreadable/);
    expect(c.err).toMatch(/not a request record/);
    expect(JSON.parse(c.out).requests.total).toBe(2);
  });

  it('`report DIR` rebuilds the same summary and tolerates a truncated last line', async () => {
    const out = join(tmpDir(), 'run');
    expect(await main(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '4', '--out', out, '--quiet'], capture().io)).toBe(0);
    const original = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    const c = capture();
    expect(await main(['report', out, '--json', '--no-write'], c.io)).toBe(0);
    expect(JSON.parse(c.out)).toEqual(original);
    writeFileSync(join(out, 'requests.jsonl'), readFileSync(join(out, 'requests.jsonl'), 'utf8') + '{"id": 99, "stat');
    const c2 = capture();
    expect(await main(['report', out, '--json', '--no-write'], c2.io)).toBe(0);
    expect(c2.err).toMatch(/truncated last line/);
    expect(JSON.parse(c2.out).requests.total).toBe(4);
  });
});
