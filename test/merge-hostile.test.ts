// merge on hostile shard directories: duplicated records are dropped and counted; a FIFO or an absurd clock origin is exit 2 with nothing written.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { run } from '../src/run.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
let server: SimServerHandle;
let shards: string[];

/** The CLI as a child process, killed after 20 s (a hang is then code null). */
function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TOKENFLOOD_SHARDS: '', JOB_COMPLETION_INDEX: '' } });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.on('data', (c) => (out += String(c)));
    child.stderr.on('data', (c) => (err += String(c)));
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, out, err })));
  });
}

/** Fresh copies of the two shard directories. */
function copies(): string[] {
  const root = tmpDir();
  return shards.map((d, i) => {
    const c = join(root, `shard-${i}`);
    cpSync(d, c, { recursive: true });
    return c;
  });
}

const lines = (dir: string): string[] => readFileSync(join(dir, 'requests.jsonl'), 'utf8').split('\n').filter(Boolean);
const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

beforeAll(async () => {
  server = await startSimServer({ timeScale: 50 });
  const root = tmpDir();
  shards = [join(root, 's0'), join(root, 's1')];
  for (const [i, out] of shards.entries()) await run({ baseUrl: server.baseUrl, concurrency: 2, requests: 10, maxTokens: 4, shard: `${i}/2`, out, quiet: true });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('merge: duplicated records', () => {
  it('a shard with its records appended twice merges to 10 of 10, says so on stderr and counts the drop in run.json', async () => {
    const [a, b] = copies();
    const n0 = lines(a).length;
    appendFileSync(join(a, 'requests.jsonl'), readFileSync(join(a, 'requests.jsonl')));
    const out = join(tmpDir(), 'm');
    const r = await cli(['merge', a, b, '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).requests.total).toBe(10);
    expect(r.err).toMatch(new RegExp(`dropped ${n0} duplicate records .*shard-0/requests.jsonl ${n0}`));
    expect(runJson(out).merged.duplicate_records_dropped).toBe(n0);
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).run.merged.duplicate_records_dropped).toBe(n0);
    expect(lines(out).length).toBe(10);
  }, 30_000);

  it('a record copied from the other shard gives 10, not 11', async () => {
    const [a, b] = copies();
    appendFileSync(join(a, 'requests.jsonl'), `${lines(b)[0]}\n`);
    const out = join(tmpDir(), 'm');
    const r = await cli(['merge', a, b, '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).requests.total).toBe(10);
    expect(r.err).toMatch(/dropped 1 duplicate record \(/);
    expect(runJson(out).merged.duplicate_records_dropped).toBe(1);
  }, 30_000);

  it('a clean merge reports 0 dropped and no warning about duplicates', async () => {
    const [a, b] = copies();
    const out = join(tmpDir(), 'm');
    const r = await cli(['merge', a, b, '--out', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toMatch(/duplicate/);
    expect(runJson(out).merged.duplicate_records_dropped).toBe(0);
  }, 30_000);
});

describe('merge: input that must be exit 2 with nothing written', () => {
  it('a named pipe as requests.jsonl: exit 2 at once, naming it, no --out directory', async () => {
    const [a, b] = copies();
    rmSync(join(b, 'requests.jsonl'));
    execFileSync('mkfifo', [join(b, 'requests.jsonl')]);
    const out = join(tmpDir(), 'm');
    const r = await cli(['merge', a, b, '--out', out]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`${join(b, 'requests.jsonl')} is a named pipe, not a regular file`);
    expect(existsSync(out)).toBe(false);
  }, 30_000);

  it('a clock origin that is not a time (1e999, a string-like huge number): exit 2 naming the field, no --out directory', async () => {
    for (const bad of ['1e999', '-1e999', '1e300', '12']) {
      const [a, b] = copies();
      const text = readFileSync(join(b, 'run.json'), 'utf8').replace(/"clock_origin_unix_ms": [0-9.e+-]+/, `"clock_origin_unix_ms": ${bad}`);
      writeFileSync(join(b, 'run.json'), text);
      const out = join(tmpDir(), 'm');
      const r = await cli(['merge', a, b, '--out', out]);
      expect(r.code, `${bad}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`${join(b, 'run.json')}: start_sync.clock_origin_unix_ms: expected epoch milliseconds`);
      expect(r.err).not.toMatch(/internal|RangeError/);
      expect(existsSync(out)).toBe(false);
    }
  }, 60_000);
});
