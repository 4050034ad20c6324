// Hostile paths and files: pseudo filesystems, devices that never end, huge datasets. Each is refused fast (exit 2) or read in bounded memory.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, writeSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
const LOAD = join(__dirname, '..', 'dist', 'dataset', 'load.js');

/** Run node in a child process; SIGKILL after `killMs` (the old failures spun or read forever and ignored SIGTERM). */
function node(args: string[], killMs = 20_000): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), killMs);
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, out, err, ms: performance.now() - t0 });
    });
  });
}

let server: ScriptServer;
let dir: string;
beforeAll(async () => {
  server = await startScriptServer(() => ({ steps: [{ at: 0, write: chatChunk({ content: 'fine' }) + usageChunk(8, 1) + DONE }] }));
  dir = mkdtempSync(join(tmpdir(), 'tokenflood-hostile-'));
});
afterAll(() => server.close());

const run = (...a: string[]) => node([CLI, 'run', '--base-url', server.baseUrl, '--requests', '1', '--quiet', ...a]);

describe('hostile paths and files', () => {
  it('--out under /proc: exit 2 at once naming --out, nothing sent', async () => {
    const before = server.bodies.length;
    const r = await run('--out', '/proc/self/x');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^tokenflood: --out: .*\/proc\/self\/x/m);
    expect(r.ms).toBeLessThan(15_000); // the old code never returned; the kill at 20 s would give code null
    expect(server.bodies.length).toBe(before);
  }, 30_000);

  it('--out --overwrite where requests.jsonl is a named pipe: exit 2 at once (opening it would block forever)', async () => {
    const out = mkdtempSync(join(dir, 'fifo-'));
    execFileSync('mkfifo', [join(out, 'requests.jsonl')]);
    const before = server.bodies.length;
    const r = await run('--out', out, '--overwrite');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--out: .*requests\.jsonl is not a regular file \(it is a named pipe\)/);
    expect(server.bodies.length).toBe(before);
  }, 30_000);

  it('sweep --out under /proc: exit 2 at once naming --out, nothing sent', async () => {
    const before = server.bodies.length;
    const r = await node([CLI, 'sweep', '--base-url', server.baseUrl, '--concurrency', '1', '--requests', '1', '--out', '/proc/self/x']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^tokenflood: --out: .*\/proc\/self\/x/m);
    expect(server.bodies.length).toBe(before);
  }, 30_000);

  it('dataset stats FILE on a device: exit 2 naming it', async () => {
    const r = await node([CLI, 'dataset', 'stats', '/dev/zero']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot read \/dev\/zero: is a character device, not a regular file/);
  }, 30_000);

  it('--config /dev/zero: exit 2 at once naming --config (not a regular file)', async () => {
    const r = await run('--config', '/dev/zero');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--config: \/dev\/zero: .*not a regular file/);
  }, 30_000);

  it('--config over 1 MiB: exit 2 naming --config and the limit', async () => {
    const f = join(dir, 'big.yaml');
    const fd = openSync(f, 'w');
    writeSync(fd, `# ${'x'.repeat(1024 * 1024 + 10)}\nrequests: 1\n`);
    closeSync(fd);
    const r = await run('--config', f);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--config: .*big\.yaml: .*larger than the 1 MiB limit/);
  }, 30_000);

  it('--dataset /dev/zero and --replay /dev/zero: exit 2 naming the flag, nothing sent', async () => {
    const before = server.bodies.length;
    const d = await run('--dataset', '/dev/zero');
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/--dataset: cannot read \/dev\/zero: is a character device, not a regular file/);
    const p = await run('--replay', '/dev/zero');
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/--replay: cannot read \/dev\/zero: is a character device, not a regular file/);
    expect(server.bodies.length).toBe(before);
  }, 60_000);

  it('a JSONL line over 16 MiB: exit 2 naming --dataset and file:line', async () => {
    const f = join(dir, 'long-line.jsonl');
    const fd = openSync(f, 'w');
    writeSync(fd, '{"prompt":"short"}\n');
    writeSync(fd, `{"prompt":"${'y'.repeat(17 * 1024 * 1024)}"}\n`);
    closeSync(fd);
    const r = await run('--dataset', f);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--dataset: .*long-line\.jsonl:2: line longer than 16 MiB/);
  }, 30_000);

  // JSONL is read line by line, a ShareGPT JSON array element by element: memory follows the items, not the text.
  it.each([
    ['JSONL', 'big.jsonl', (i: number) => JSON.stringify({ prompt: `question ${i} ${'lorem ipsum dolor sit amet '.repeat(36)}`, max_tokens: 16 }), '', '\n', ''],
    ['ShareGPT', 'big.json', (i: number) => JSON.stringify({ conversations: [{ from: 'human', value: `question ${i} ${'lorem ipsum dolor sit amet '.repeat(36)}` }, { from: 'gpt', value: 'ok' }] }), '[\n', ',\n', '\n]\n'],
  ] as const)('a 50 MB %s dataset loads with peak memory well below 3x the file size', async (_name, name, record, open, sep, close) => {
    const f = join(dir, name);
    const fd = openSync(f, 'w');
    // One record with non-ASCII text, as real datasets have: a whole-file string then needs two bytes per character.
    let chunk = open + record(-1).replace('question', 'naïve café ☕ — ünïcödé');
    for (let i = 0; statSync(f).size < 50e6; i++) {
      chunk += sep + record(i);
      if (chunk.length > 1e6) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk + close);
    closeSync(fd);
    const size = statSync(f).size;
    // maxRSS is the peak; the baseline (node itself, the module graph) is taken after the import, before the load.
    const script = `const { loadDataset } = await import(${JSON.stringify(LOAD)});
      const base = process.resourceUsage().maxRSS * 1024;
      const d = loadDataset(${JSON.stringify(f)});
      console.log(JSON.stringify({ items: d.items.length, problems: d.problems.length, peak: process.resourceUsage().maxRSS * 1024 - base }));`;
    const r = await node(['--input-type=module', '-e', script], 120_000);
    expect(r.code, r.err).toBe(0);
    const { items, problems, peak } = JSON.parse(r.out) as { items: number; problems: number; peak: number };
    expect(problems).toBe(0);
    expect(items).toBeGreaterThan(40_000);
    console.log(`${name}: peak ${(peak / 1e6).toFixed(0)} MB for a ${(size / 1e6).toFixed(0)} MB file`);
    expect(peak, `peak ${(peak / 1e6).toFixed(0)} MB for a ${(size / 1e6).toFixed(0)} MB file`).toBeLessThan(size * 3);
  }, 150_000);
});
