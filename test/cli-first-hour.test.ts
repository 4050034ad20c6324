// A new user's first hour: bad dataset lines are reported, `report` reads sweep directories, run and sweep share the --sim-* flags.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { buildProgram } from '../src/cli/program.js';
import { EMBEDDED_SIM_FLAGS } from '../src/config/embedded-sim.js';
import { capture } from './io-capture.js';
import { tmpDir } from './helpers.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const cap = capture();
  const code = await main(args, cap.io);
  return { code, out: cap.out, err: cap.err };
}

/** A dataset with 9 good lines and `bad` bad ones (lines 2, 4, 6, ...), and its expected reasons by line. */
function badDataset(bad: number): { file: string; badLines: number[] } {
  const file = join(tmpDir(), 'prompts.jsonl');
  const lines: string[] = [];
  const badLines: number[] = [];
  for (let i = 0; lines.length < 9 + bad; i++) {
    if (badLines.length < bad && lines.length % 2 === 1) {
      lines.push(badLines.length % 2 ? '{"prompt": 42}' : '{not json');
      badLines.push(lines.length);
    } else lines.push(JSON.stringify({ prompt: `question ${i}: say something`, max_tokens: 8 }));
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return { file, badLines };
}

describe('bad dataset lines are reported on stderr', () => {
  for (const command of ['run', 'simulate', 'sweep'] as const)
    it(`${command}: the count and the first file:line reasons on stderr`, async () => {
      const { file, badLines } = badDataset(7);
      const out = join(tmpDir(), 'out');
      const r = await cli([command, '--dataset', file, '--requests', '6', '--concurrency', command === 'sweep' ? '1,2' : '2', '--quiet', '--out', out]);
      expect(r.code, r.err).toBe(0);
      const runJson = command === 'sweep' ? join(out, 'points', readdirSync(join(out, 'points'))[0], 'run.json') : join(out, 'run.json');
      expect(JSON.parse(readFileSync(runJson, 'utf8')).workload.skipped_bad_records).toBe(7);
      const lines = r.err.split('\n');
      const head = lines.findIndex((l) => l.includes(`--dataset ${file}: 7 bad records skipped`));
      expect(head, r.err).toBeGreaterThanOrEqual(0);
      // Once, even when a sweep loads the dataset for each of its points.
      expect(lines.filter((l) => l.includes('bad records skipped'))).toHaveLength(1);
      // The first five reasons, each naming file:line, then how many more.
      const reasons = lines.slice(head + 1, head + 6);
      expect(reasons.map((l) => l.trim().match(/^(.*):(\d+): /)?.slice(1))).toEqual(badLines.slice(0, 5).map((n) => [file, String(n)]));
      expect(reasons[0]).toMatch(/not valid JSON/);
      expect(lines[head + 6]).toContain('... and 2 more');
      expect(r.out).not.toContain('bad records skipped');
    });

  it('no warning when every line is good', async () => {
    const { file } = badDataset(0);
    const r = await cli(['run', '--dataset', file, '--requests', '3', '--quiet', '--out', tmpDir()]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain('skipped');
  });
});

describe('report DIR on a sweep directory', () => {
  it('prints the sweep table, and sweep.json with --json', async () => {
    const dir = join(tmpDir(), 'sweep');
    const s = await cli(['sweep', '--concurrency', '1,2', '--requests', '4', '--input-tokens', '16', '--output-tokens', '8', '--sim-time-scale', '20', '--quiet', '--out', dir]);
    expect(s.code, s.err).toBe(0);
    const r = await cli(['report', dir]);
    expect(r.code, r.err).toBe(0);
    // The same table the sweep printed at its end.
    const table = (text: string) => text.slice(text.indexOf('concurrency  '), text.indexOf('\n\n', text.indexOf('concurrency  ')));
    expect(table(r.out).split('\n').length).toBeGreaterThanOrEqual(4);
    expect(table(r.out)).toBe(table(s.out));
    const j = await cli(['report', dir, '--json']);
    expect(j.code, j.err).toBe(0);
    expect(JSON.parse(j.out)).toEqual(JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')));
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
  });

  it('a sweep.json that does not parse: one message naming the file, exit 2', async () => {
    const dir = tmpDir();
    writeFileSync(join(dir, 'sweep.json'), '{"points": [');
    const r = await cli(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${join(dir, 'sweep.json')} is not a sweep document`);
  });
});

describe('the embedded server flags: one set for run and sweep', () => {
  it('run and sweep declare the same --sim-* flags', () => {
    const program = buildProgram(capture().io);
    const simFlags = (name: string) => program.commands.find((c) => c.name() === name)!.options.map((o) => o.flags).filter((f) => f.startsWith('--sim-')).sort();
    const declared = Object.values(EMBEDDED_SIM_FLAGS).map((f) => f.flag).sort();
    expect(simFlags('run')).toEqual(declared);
    expect(simFlags('sweep')).toEqual(declared);
    expect(simFlags('simulate')).toEqual([]);
  });

  it('run --sim-model --sim-gpu --sim-time-scale start the embedded server with them', async () => {
    const out = tmpDir();
    const r = await cli(['run', '--sim-model', 'qwen2.5-7b', '--sim-gpu', 'a100-40gb', '--sim-time-scale', '10', '--sim-max-num-seqs', '4', '--requests', '6', '--concurrency', '2', '--input-tokens', '32', '--output-tokens', '16', '--quiet', '--out', out]);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.run).toMatchObject({ model: 'qwen2.5-7b', embedded_server: true, sim_time_scale: 10 });
    expect(summary.run.config).toMatchObject({ sim_gpu: 'a100-40gb', sim_model: 'qwen2.5-7b', sim_time_scale: 10, sim_max_num_seqs: 4 });
    expect(summary.requests.ok).toBe(6);
    expect(r.out).toContain('simulated server running 10x faster than real time');
  });

  it('bad --sim-* values: one message naming the flag, exit 2, no results directory', async () => {
    const out = join(tmpDir(), 'never');
    const r = await cli(['run', '--sim-gpu', 'h900', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--sim-gpu: unknown GPU "h900"/);
    expect(existsSync(out)).toBe(false);
    const t = await cli(['run', '--sim-time-scale', 'fast', '--out', out]);
    expect(t.code).toBe(2);
    expect(t.err).toContain('--sim-time-scale');
  });

  it('--sim-* with --base-url is refused before anything is sent, by run and by sweep', async () => {
    let hits = 0;
    const server = createServer((_q, res) => {
      hits++;
      res.end('{}');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      for (const args of [['run'], ['sweep', '--concurrency', '1,2']]) {
        const r = await cli([...args, '--base-url', base, '--sim-gpu', 'h100', '--model', 'm', '--out', join(tmpDir(), 'x')]);
        expect(r.code).toBe(2);
        expect(r.err).toContain('--sim-gpu: only apply to the embedded simulated server (no --base-url)');
      }
      expect(hits).toBe(0);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});

describe('sweep progress within a level', () => {
  it('prints the running point\'s progress line on stderr while a level runs', async () => {
    // One request of 1,500 tokens at ~6.6 ms each (h100, time scale 1): a level of about 10 s, twice the 5 s interval
    // of plain (non-TTY) progress lines, so at least one is due even if timers fire seconds late.
    const dir = join(tmpDir(), 'sweep');
    const r = await cli(['sweep', '--concurrency', '1', '--requests', '1', '--input-tokens', '16', '--output-tokens', '1500', '--out', dir]);
    expect(r.code, r.err).toBe(0);
    const progress = r.err.split('\n').filter((l) => /^\[1\/1 \S+\] \[[\d.]+s\] done 0\/1 /.test(l));
    expect(progress.length, r.err).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toContain('in flight 1');
    expect(r.out).toMatch(/^\[1\/1\] /m);
  }, 60_000);
});
