// eval refuses the run flags it cannot honour (--runs, --cancel-after/--cancel-rate, --users): exit 2, one message each, nothing sent or written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

let server: Server;
let baseUrl: string;
let seen = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen++;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('eval and the run flags it cannot honour', () => {
  const cases: [string[], RegExp][] = [
    [['--runs', '2'], /--runs: eval does not repeat whole runs; --repeat K/],
    [['--cancel-after', '2s'], /--cancel-after: an eval grades every answer/],
    [['--cancel-rate', '10%'], /--cancel-rate: an eval grades every answer/],
    [['--users', '2', '--user-rate', '1'], /--users\/--user-rate: eval paces its items/],
  ];
  for (const [flags, message] of cases) {
    it(`${flags.join(' ')}: exit 2, nothing sent, no results directory`, async () => {
      const out = join(tmpDir(), 'eval');
      const before = seen;
      const io = capture();
      const code = await main(['eval', '--set', 'gsm8k', '--limit', '2', '--base-url', baseUrl, '--out', out, '--quiet', ...flags], io.io);
      expect(code, io.err).toBe(2);
      expect(io.err).toMatch(message);
      expect(seen).toBe(before);
      expect(existsSync(out)).toBe(false);
    });
  }
});
