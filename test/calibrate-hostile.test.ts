// calibrate on hostile run directories: garbage numbers, 1e9-token records and a directory given twice are exit 2 naming file/line/field, and no profile is written.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimServer, type SimServerHandle } from '../src/sim/server.js';
import { run } from '../src/run.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
let server: SimServerHandle;
let good: string;

/** The CLI as a child process, killed after 30 s (a hang is then code null). */
function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (c) => (out += String(c)));
    child.stderr.on('data', (c) => (err += String(c)));
    child.on('exit', (code) => (clearTimeout(timer), resolve({ code, out, err })));
  });
}

function copy(): string {
  const d = join(tmpDir(), 'run');
  cpSync(good, d, { recursive: true });
  return d;
}
const editJson = (file: string, f: (o: any) => void): void => {
  const o = JSON.parse(readFileSync(file, 'utf8'));
  f(o);
  writeFileSync(file, JSON.stringify(o));
};

beforeAll(async () => {
  server = await startSimServer({ timeScale: 50 });
  good = join(tmpDir(), 'good');
  await run({ baseUrl: server.baseUrl, concurrency: 2, requests: 6, maxTokens: 8, inputTokens: '64', out: good, quiet: true });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('calibrate refuses hostile inputs (exit 2, nothing written)', () => {
  it('garbage means (−1e308 TTFT, a 1e308 time scale): names summary.json and the fields, writes no profile', async () => {
    const d = copy();
    editJson(join(d, 'summary.json'), (s) => {
      s.ttft_ms.mean = -1e308;
      s.tpot_ms.mean = 'x';
      s.run.sim_time_scale = 1e308;
    });
    const profile = join(tmpDir(), 'p.yaml');
    const r = await cli(['calibrate', d, '--out', profile]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`calibrate: ${join(d, 'summary.json')}: ttft_ms.mean: expected a time`);
    expect(r.err).toContain('tpot_ms.mean: expected');
    expect(r.err).toContain('run.sim_time_scale: expected');
    expect(r.out).not.toMatch(/Infinity/);
    expect(existsSync(profile)).toBe(false);
  }, 40_000);

  it('records of 1e9 tokens: exit 2 at once naming requests.jsonl, the line and the field', async () => {
    const d = copy();
    const file = join(d, 'requests.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.stringify({ ...JSON.parse(l), input_tokens: 1e9, output_tokens: 1e9 }));
    writeFileSync(file, lines.join('\n') + '\n');
    const profile = join(tmpDir(), 'p.yaml');
    const r = await cli(['calibrate', d, '--out', profile]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`${file}:1: input_tokens: expected a whole token count from 0 to 2097152, got 1000000000`);
    expect(r.err).toContain(`${file}:1: output_tokens`);
    expect(existsSync(profile)).toBe(false);
  }, 40_000);

  it('the same directory twice (also through another path): exit 2 saying so', async () => {
    const d = copy();
    const profile = join(tmpDir(), 'p.yaml');
    const r = await cli(['calibrate', d, `${d}/.`, '--out', profile]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/the same run as .*given twice/);
    expect(existsSync(profile)).toBe(false);
  }, 40_000);
});
