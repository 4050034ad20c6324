// --metrics-port on a sweep (one server, figures by point) and --metrics-linger on the real CLI process (a signal ends the wait).
import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { recordsOf } from '../src/report/results-dir.js';
import { startCli, until } from './fixtures/live-cli.js';
import { scrape, total } from './fixtures/prom-scrape.js';
import { tmpDir } from './helpers.js';

describe('--metrics-port on a sweep', () => {
  it('one server for the whole sweep; each point counted under its own `point` label; final after the last point', { timeout: 90_000 }, async () => {
    const { registerSweep } = await import('../src/cli/sweep.js');
    const { readdirSync } = await import('node:fs');
    const out = tmpDir();
    const cli = startCli(registerSweep, ['sweep', '--concurrency', '1,2', '--requests', '6', '--input-tokens', '32', '--output-tokens', '16', '--sim-time-scale', '4', '--out', out, '--metrics-port', '0', '--metrics-linger', '2s']);
    const url = await until(() => /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(cli.err())?.[1], 20_000, 'the metrics URL');
    const final = await until(async () => {
      const fams = await scrape(url);
      return total(fams, 'tokenflood_run_finished') === 1 ? fams : undefined;
    }, 60_000, 'tokenflood_run_finished 1');
    const points = readdirSync(join(out, 'points'));
    expect(points).toHaveLength(2);
    for (const p of points) {
      const recs = [...recordsOf(join(out, 'points', p, 'requests.jsonl'))];
      expect(total(final, 'tokenflood_requests_total', { point: p })).toBe(recs.length);
      expect(total(final, 'tokenflood_output_tokens_total', { point: p })).toBe(recs.filter((r) => r.status === 'ok').reduce((a, r) => a + (r.output_tokens ?? 0), 0));
    }
    expect(final.find((f) => f.name === 'tokenflood_requests_total')!.metrics.every((m) => m.labels?.run === out.split('/').at(-1))).toBe(true);
    expect(await cli.done, cli.err()).toBe(0);
  });
});

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
describe.skipIf(!existsSync(CLI))('--metrics-linger and signals (real CLI process; needs `npm run build`)', () => {
  it('the final figures stay served after the run; one Ctrl-C during the wait exits at once', { timeout: 60_000 }, async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [CLI, 'run', '--requests', '4', '--input-tokens', '16', '--output-tokens', '8', '--out', tmpDir(), '--metrics-port', '0', '--metrics-linger', '10m'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += String(c)));
    child.stdout.resume();
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const url = await until(() => /final metrics stay at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(err)?.[1], 30_000, 'the linger notice');
      expect(total(await scrape(url), 'tokenflood_requests_total')).toBe(4);
      const t0 = Date.now();
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      // Far less than the 10 minutes asked for: the signal ended the wait.
      expect(Date.now() - t0).toBeLessThan(20_000);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
