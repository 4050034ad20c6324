// The embedded sim server runs in a child process, so the client's health figures describe the client alone.
import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { main } from '../src/cli/main.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

const CHILD = join(__dirname, '..', 'dist', 'sim', 'child.js');

/** Node releases a child's process handle a moment after its 'close' event: wait up to 2 s for it to go. */
async function noChildProcessLeft(): Promise<boolean> {
  for (const until = Date.now() + 2000; Date.now() < until; await new Promise((r) => setTimeout(r, 10)))
    if (!process.getActiveResourcesInfo().includes('ProcessWrap')) return true;
  return false;
}

describe.skipIf(!existsSync(CHILD))('embedded sim server (needs `npm run build`)', () => {
  it('runs outside the client process: no listening socket here during the run, none left after it', async () => {
    let during: string[] = [];
    const res = await run(
      { requests: 6, concurrency: 2, inputTokens: 32, outputTokens: 4, out: tmpDir(), quiet: true },
      { hooks: { onStart: () => (during = process.getActiveResourcesInfo()) } },
    );
    expect(res.summary.requests.ok).toBe(6);
    const runJson = JSON.parse(readFileSync(join(res.outDir, 'run.json'), 'utf8'));
    expect(runJson.embedded_server).toBe(true);
    expect(runJson.embedded_server_isolation).toBe('process');
    // Before the fix the sim server listened in this very process (a TCPServerWrap handle).
    expect(during).not.toContain('TCPServerWrap');
    expect(during).toContain('ProcessWrap');
    expect(await noChildProcessLeft()).toBe(true); // the child was closed with the run
  });

  it("sweep uses the same child process, and the child's option errors are usage errors (exit 2)", async () => {
    const c = capture();
    const code = await main(['sweep', '--concurrency', '1', '--requests', '2', '--sim-gpu', 'h900', '--out', tmpDir(), '--quiet'], c.io);
    expect(code, c.err).toBe(2);
    expect(c.err).toMatch(/h900/);
    expect(c.err).not.toMatch(/internal error/);
    expect(await noChildProcessLeft()).toBe(true);
  });
});
