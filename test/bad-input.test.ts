// A table of bad inputs: each gives exit 2, one message naming the flag, field or file:line, and sends nothing.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { startScriptServer, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

let server: ScriptServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptServer(() => ({ steps: [] }));
  dir = tmpDir();
});
afterAll(() => server.close());

const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

// [description, argv (base URL is appended for `run`), expected message]
type Case = [string, () => string[], RegExp];
const run = (...a: string[]) => () => ['run', ...a];
const cases: Case[] = [
  ['an API key with CR LF in it', run('--api-key', 'sk-abc\r\nX-Injected: 1'), /--api-key: the key contains CR \(U\+000D\), which an HTTP header does not allow$/m],
  ['a negative grace period', run('--grace-period', '-1'), /--grace-period/],
  ['zero concurrency', run('--concurrency', '0'), /--concurrency: .*(>0|greater than 0|positive)/i],
  ['non-numeric concurrency', run('--concurrency', 'lots'), /--concurrency/],
  ['fractional concurrency', run('--concurrency', '2.5'), /--concurrency: .*int/i],
  ['negative rate', run('--rate', '-3'), /--rate/],
  ['zero rate', run('--rate', '0'), /--rate/],
  ['unknown arrival', run('--rate', '2', '--arrival', 'uniform'), /--arrival/],
  ['burstiness without gamma', run('--rate', '2', '--burstiness', '2'), /--burstiness: only applies with --arrival gamma/],
  ['zero burstiness', run('--rate', '2', '--arrival', 'gamma', '--burstiness', '0'), /--burstiness/],
  ['arrival without rate', run('--arrival', 'constant'), /--arrival: only applies with --rate/],
  ['a stage that is not duration:target', run('--stages', '30s:100,2x:5'), /--stages: stage 2 "2x:5": expected duration:target, e.g. 30s:100 \(VUs\) or 30s:20\/s \(requests per second\)$/m],
  ['stages mixing VU and rate targets', run('--stages', '30s:10/s,1m:10'), /--stages: mixes VU targets/],
  ['stages that are all 0', run('--stages', '30s:0'), /--stages: every target is 0/],
  ['stages in a config file, k6 style', () => ['run', '--config', file('stages.yaml', 'stages:\n  - { duration: 10x, target: 5 }\n')], /stages\.yaml: stages: stage 1 "10x:5": expected duration:target/],
  ['stages with --ramp-up', run('--stages', '30s:10', '--ramp-up', '5s'), /--stages: cannot be combined with --ramp-up/],
  ['stages with --rate', run('--stages', '30s:10/s', '--rate', '5'), /--rate: the --stages targets set the load/],
  ['VU stages with --concurrency', run('--stages', '30s:10', '--concurrency', '5'), /--concurrency: the --stages targets are the VU counts/],
  ['stages with --replay', () => ['run', '--stages', '30s:10/s', '--replay', file('trace.jsonl', '{"timestamp":0,"input_tokens":5,"output_tokens":5}\n')], /--stages: does not apply to --replay/],
  ['a bad ramp-up', run('--ramp-up', 'soon'), /--ramp-up: expected a duration/],
  ['ramp-down without duration', run('--ramp-down', '5s'), /--ramp-down: needs --duration/],
  ['ramps as long as the duration', run('--ramp-up', '20s', '--ramp-down', '10s', '--duration', '30s'), /--ramp-up: --ramp-up plus --ramp-down \(30 s\) must be shorter than --duration \(30 s\)/],
  ['zero requests', run('--requests', '0'), /--requests/],
  ['bad duration', run('--duration', '10 minutes'), /--duration: expected a duration/],
  ['negative warmup', run('--warmup', '-1'), /--warmup/],
  ['unknown endpoint', run('--endpoint', 'embeddings'), /--endpoint/],
  ['non-numeric max line bytes', run('--max-line-bytes', '8MB'), /--max-line-bytes: expected a number of bytes/],
  ['tiny max line bytes', run('--max-line-bytes', '10'), /--max-line-bytes: expected at least 1024 bytes/],
  ['bad base URL', run('--base-url', 'localhost:8000'), /--base-url/],
  ['non-http base URL', run('--base-url', 'file:///etc/passwd'), /--base-url/],
  ['header without colon', run('--header', 'X-Foo'), /--header: expected "Name: value", got "X-Foo"/],
  ['header with a bad name', run('--header', 'Bad Name: v'), /--header/],
  ['bad timeout', run('--timeout', 'soon'), /--timeout/],
  ['bad idle timeout', run('--idle-timeout', '-5'), /--idle-timeout/],
  ['too many retries', run('--retry', '99'), /--retry/],
  ['max error rate over 100%', run('--max-error-rate', '150%'), /--max-error-rate/],
  ['max error rate not a number', run('--max-error-rate', 'half'), /--max-error-rate/],
  ['zero workers', run('--workers', '0'), /--workers/],
  ['bad grace period', run('--grace-period', 'x'), /--grace-period/],
  ['top-p out of range', run('--top-p', '1.5'), /--top-p/],
  ['negative temperature', run('--temperature', '-1'), /--temperature/],
  ['unknown tokenizer', run('--tokenizer', 'gpt2-not-here'), /--tokenizer: unknown tokenizer "gpt2-not-here"/],
  ['unknown flag', run('--concurency', '4'), /unknown option '--concurency'/],
  ['missing config file', () => ['run', '--config', join(dir, 'nope.yaml')], /nope\.yaml: cannot read config file/],
  ['config file with a typo', () => ['run', '--config', file('typo.yaml', 'concurency: 4\n')], /typo\.yaml: unknown key "concurency" \(did you mean "concurrency"\?\)/],
  ['config file with a wrong type', () => ['run', '--config', file('type.yaml', 'concurrency: lots\n')], /type\.yaml: concurrency/],
  ['config file that is a list', () => ['run', '--config', file('list.yaml', '- 1\n- 2\n')], /list\.yaml: expected a mapping/],
  ['config file with broken YAML', () => ['run', '--config', file('broken.yaml', 'a: [1, 2\n')], /broken\.yaml: cannot read config file/],
  ['serve: unknown GPU', () => ['serve', '--gpu', 'h900'], /h900/],
  ['serve: unknown model profile', () => ['serve', '--model-profile', 'llama-9'], /llama-9/],
  ['serve: bad port', () => ['serve', '--port', '70000'], /--port/],
  ['capacity: zero tensor parallelism', () => ['capacity', '--tp', '0'], /--tp/],
  ['report: not a results directory', () => ['report', dir], /requests\.jsonl not found/],
  ['credentials inside the base URL', run('--base-url', 'http://user:pw@127.0.0.1:9/v1'), /--base-url: credentials in the URL are not sent/],
  ['an SLO on an inherited property name', run('--slo', 'constructor_p99=5ms'), /--slo: unknown objective "constructor_p99"/],
  ['--out is an existing file', () => ['run', '--out', file('afile', 'x')], /--out: .*afile exists and is not a directory/],
  ['--out under a file', () => ['run', '--out', join(file('bfile', 'x'), 'sub')], /--out: cannot use .*bfile\/sub/],
  ['unknown backend', run('--backend', 'grpc'), /--backend: unknown kind "grpc" \(valid: openai-chat, openai-completions[^)]*\)/],
  ['backend disagreeing with endpoint', run('--backend', 'openai-completions', '--endpoint', 'chat'), /--backend: openai-completions loads --endpoint completions, not --endpoint chat/],
  ['config file with an unknown backend', () => ['run', '--config', file('backend.yaml', 'backend: grpc\n'), '--base-url', server.baseUrl, '--quiet'], /backend\.yaml: backend: unknown kind "grpc" \(valid: openai-chat, openai-completions[^)]*\)/],
  ['a websocket config whose answer pointer is not a pointer', () => ['run', '--backend', 'websocket', '--model', 'm', '--backend-config', file('ws.yaml', 'websocket:\n  request: { a: 1 }\n  answer: delta\n  done: /done\n')], /ws\.yaml: websocket\.answer: "delta" is not a JSON pointer/],
  ['a websocket config file that does not exist', () => ['run', '--backend', 'websocket', '--backend-config', join(dir, 'missing.yaml')], /--backend-config: .*missing\.yaml: cannot read/],
  ['--batch-size without an embeddings or rerank backend', run('--batch-size', '8'), /--batch-size: only applies with --backend embeddings, embeddings-tei, rerank, rerank-tei/],
  ['simulate: unknown backend', () => ['simulate', '--backend', 'openai-embeddings', '--quiet'], /--backend: unknown kind "openai-embeddings" \(valid: openai-chat, openai-completions[^)]*\)/],
];

describe('bad input', () => {
  it(`has a table of at least 30 cases (${cases.length})`, () => expect(cases.length).toBeGreaterThanOrEqual(30));
  for (const [name, argv, re] of cases) {
    it(name, async () => {
      const args = argv();
      const full = args[0] === 'run' && !args.includes('--base-url') ? [...args, '--base-url', server.baseUrl, '--quiet'] : args;
      const before = server.bodies.length;
      const c = capture();
      const code = await main(full, c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toMatch(re);
      expect(c.err).not.toMatch(/internal error|at .*\.ts:\d+/);
      expect(server.bodies.length).toBe(before);
    });
  }
});
