// eval --grade-regex '(a+)+$' against a server whose answers are 50,000 characters: grading ends (bounded regex time) on both transports.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
const ANSWER = `${'a'.repeat(50_000)}!`;
let server: Server;
let baseUrl: string;

/** The CLI as a child process, killed after 45 s (a hang is then code null). */
function cli(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
    child.stderr.on('data', (c) => (err += String(c)));
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, err })));
  });
}

beforeAll(async () => {
  // An OpenAI-compatible chat server whose every answer is 50,000 a's and a !, streamed or not.
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const stream = (() => { try { return JSON.parse(body).stream === true; } catch { return false; } })();
      if (!stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 100, total_tokens: 110 } }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: ANSWER }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 100, total_tokens: 110 } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('eval --grade-regex on hostile answers', () => {
  for (const transport of ['h1', 'undici'])
    it(`(a+)+$ on 50,000-character answers ends and grades every item (${transport})`, async () => {
      const dir = tmpDir();
      const set = join(dir, 'set.jsonl');
      writeFileSync(set, ['{"question":"say a","answer":"a"}', '{"question":"say b","answer":"b"}', '{"question":"say c","answer":"c"}'].join('\n') + '\n');
      const out = join(dir, 'out');
      const r = await cli(['eval', '--no-validate', '--base-url', baseUrl, '--model', 'm', '--set', set, '--grade', 'regex', '--grade-regex', '(a+)+$', '--concurrency', '3', '--transport', transport, '--out', out, '--quiet']);
      expect(r.code, r.err).toBe(0);
      const rows = readFileSync(join(out, 'eval.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(rows).toHaveLength(3);
      for (const row of rows) expect(row).toMatchObject({ correct: false });
    }, 60_000);
});
