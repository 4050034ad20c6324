// Only `run` shards: sweep, simulate and eval refuse --shard/--start-at (flag, config file, a Job's environment), exit 2, nothing sent or written.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

/** Counts every request (preflight GETs included); answers as an OpenAI-compatible server would, so a run could go on. */
let server: Server;
let baseUrl: string;
let seen = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen++;
    req.resume();
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: '42' }, finish_reason: 'stop' }], usage: { prompt_tokens: 8, completion_tokens: 1 } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const saved = { shards: process.env.TOKENFLOOD_SHARDS, index: process.env.JOB_COMPLETION_INDEX };
afterEach(() => {
  for (const [k, v] of [['TOKENFLOOD_SHARDS', saved.shards], ['JOB_COMPLETION_INDEX', saved.index]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Each command's argv that would send (or, for simulate, write) without the shard flags; two streams, so --shard 0/2 is valid for run. */
const COMMANDS: Record<string, (out: string) => string[]> = {
  sweep: (out) => ['sweep', '--base-url', baseUrl, '--concurrency', '2,4', '--requests', '4', '--input-tokens', '16', '--output-tokens', '4', '--no-stream', '--out', out, '--quiet'],
  simulate: (out) => ['simulate', '--concurrency', '2', '--requests', '4', '--input-tokens', '16', '--output-tokens', '4', '--out', out, '--quiet'],
  eval: (out) => ['eval', '--set', 'gsm8k', '--limit', '4', '--base-url', baseUrl, '--concurrency', '2', '--no-stream', '--out', out, '--quiet'],
};

type How = { name: string; extra: (dir: string) => string[]; env?: Record<string, string>; message: RegExp };
const HOW: How[] = [
  { name: 'the --shard flag', extra: () => ['--shard', '0/2'], message: /^tokenflood: --shard: (\w+) does not shard \(.+\): use tokenflood run --shard I\/N \(docs\/distributed\.md\)$/m },
  { name: 'the --start-at flag', extra: () => ['--start-at', new Date(Date.now() + 1000).toISOString()], message: /^tokenflood: --start-at: (\w+) does not shard, so it has no shards to start together: drop it, or use tokenflood run --shard I\/N --start-at TIME/m },
  {
    name: 'shard: in the config file',
    extra: (dir) => {
      const f = join(dir, 'shard.yaml');
      writeFileSync(f, 'shard: 1/2\n');
      return ['--config', f];
    },
    message: /^tokenflood: --shard: (\w+) does not shard \(.+\): use tokenflood run --shard I\/N/m,
  },
  { name: "a Kubernetes Job's TOKENFLOOD_SHARDS", extra: () => [], env: { TOKENFLOOD_SHARDS: '2', JOB_COMPLETION_INDEX: '1' }, message: /^tokenflood: TOKENFLOOD_SHARDS: is set, as in a shard of tokenflood k8s manifest, but (\w+) does not shard \(.+\): unset it, or use tokenflood run --shard I\/N/m },
];

describe.each(Object.keys(COMMANDS))('%s refuses sharding', (command) => {
  // eval's own --shard I/N splits its set (test/eval-shards.test.ts); a config file's or a Job's run shard is still refused.
  const hows = command === 'eval' ? HOW.filter((h) => h.name !== 'the --shard flag') : HOW;
  it.each(hows.map((h) => [h.name, h] as const))('given by %s: exit 2, one message naming it and tokenflood run --shard, nothing sent or written', async (_name, how) => {
    const dir = tmpDir();
    const out = join(dir, 'out');
    Object.assign(process.env, how.env ?? {});
    const before = seen;
    const c = capture();
    const code = await main([...COMMANDS[command](out), ...how.extra(dir)], c.io);
    expect(code, c.err).toBe(2);
    expect(c.err).toMatch(how.message);
    expect(how.message.exec(c.err)![1]).toBe(command);
    expect(c.err).not.toMatch(/problems:|internal error|at .*\.ts:\d+/);
    expect(seen - before).toBe(0);
    expect(existsSync(out)).toBe(false);
  });
});

describe('the refused flags', () => {
  it.each(Object.keys(COMMANDS))("are not in %s's help (they are run's)", async (command) => {
    const c = capture();
    await main([command, '--help'], c.io);
    expect(c.out).toContain('--out');
    // --start-at-fraction (trace sessions, issue 27) is a workload flag of every command; the refused one is --start-at itself.
    expect(c.out).not.toMatch(command === 'eval' ? /--start-at(?![-\w])/ : /--shard|--start-at(?![-\w])/);
  });
});
