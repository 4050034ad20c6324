// Disk full for real (a tiny tmpfs): the run stops sending, names the file and ENOSPC, exits 1, keeps every complete record.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerRun } from '../src/cli/run.js';
import { runCli } from './fixtures/cli-harness.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type ScriptServer } from './fixtures/script-server.js';

/** Mount a tmpfs of `size` on a new directory; null where mounting is not permitted (not root, no CAP_SYS_ADMIN). */
function mountTiny(size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'tokenflood-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}
const unmount = (dir: string) => {
  execFileSync('umount', [dir], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
};

const probe = mountTiny('64k');
if (probe) unmount(probe);

let server: ScriptServer | undefined;
let mnt: string | null = null;
beforeEach(async () => {
  server = await startScriptServer(() => ({ steps: [{ at: 0, write: chatChunk({ content: 'fine' }) + chatChunk({ content: ' words' }) + usageChunk(8, 2) + DONE }] }));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (mnt) unmount(mnt);
  mnt = null;
});

/** Every file stdout says was written exists and is complete; no temp file is left behind. */
function checkAnnounced(out: string, dir: string): string[] {
  const line = out.split('\n').find((l) => l.startsWith('wrote ')) ?? '';
  const names = line ? line.slice(`wrote ${dir}/`.length).split(/, | and /) : [];
  for (const n of names) {
    expect(existsSync(join(dir, n)), `${n} announced but missing`).toBe(true);
    if (n.endsWith('.json')) expect(() => JSON.parse(readFileSync(join(dir, n), 'utf8'))).not.toThrow();
    if (n.endsWith('.html')) expect(readFileSync(join(dir, n), 'utf8').trimEnd()).toMatch(/<\/html>$/);
  }
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  return names;
}

describe.skipIf(!probe).each(['h1', 'undici'] as const)('disk full on a real tmpfs (transport %s)', (transport) => {
  it('requests.jsonl fills the disk: sending stops, exit 1 naming the file and ENOSPC, every complete record kept', async () => {
    mnt = mountTiny('160k');
    const dir = join(mnt!, 'run');
    const requests = 5000;
    const r = await runCli(registerRun, ['run', '--base-url', server!.baseUrl, '--requests', String(requests), '--concurrency', '4', '--input-tokens', '8', '--output-tokens', '2', '--out', dir, '--quiet', '--transport', transport]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`cannot write ${dir}/requests\\.jsonl: ENOSPC`));
    expect(r.err).not.toMatch(/internal error|\n\s+at /);
    const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').split('\n');
    expect(lines.pop()).toBe(''); // ends with a newline: no truncated last line
    const recs = lines.map((l) => JSON.parse(l) as { id: number });
    expect(recs.length).toBeGreaterThan(10);
    expect(r.err).toContain(`${recs.length} complete records kept`);
    // Sending stopped: at most the requests in flight when the disk filled went out after the last kept record.
    expect(server!.bodies.length).toBeLessThan(recs.length + 20);
    expect(server!.bodies.length).toBeLessThan(requests);
    const announced = checkAnnounced(r.out, dir);
    expect(announced).not.toContain('requests.jsonl');
    // A summary of what was measured is still shown.
    expect(r.out).toMatch(/TTFT|ttft/);
  });

  it('report.html does not fit: no truncated report is left or announced, exit 1 names report.html and ENOSPC', async () => {
    mnt = mountTiny('400k'); // room for the records and summary, not for the ~1 MB report
    const dir = join(mnt!, 'run');
    const r = await runCli(registerRun, ['run', '--base-url', server!.baseUrl, '--requests', '20', '--concurrency', '2', '--input-tokens', '8', '--output-tokens', '2', '--out', dir, '--quiet', '--transport', transport]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`cannot write ${dir}/report\\.html: ENOSPC`));
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
    const announced = checkAnnounced(r.out, dir);
    // gpu_metrics.jsonl: the host sampler runs in every measured run (docs/gpu-telemetry.md).
    expect(announced).toEqual(['gpu_metrics.jsonl', 'requests.jsonl', 'run.json', 'summary.json', 'stats.csv']);
    expect(readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n')).toHaveLength(20);
    // stats.csv went through the same temp-and-rename path as summary.json: whole, the run's row first.
    expect(readFileSync(join(dir, 'stats.csv'), 'utf8')).toMatch(/^class,requests,[^\n]+\nall,20,/);
  });
});
