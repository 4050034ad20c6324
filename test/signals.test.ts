// Ctrl-C and SIGTERM against the real CLI process: stop sending, wait the grace period, keep every record.
import { describe, it, expect, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptServer, chatChunk, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { rebuildSummary } from '../src/cli/report.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stderr.on('data', (c) => (err += String(c)));
  child.stdout.on('data', (c) => (out += String(c)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, err: () => err, out: () => out };
}

async function waitFor(cond: () => boolean, ms = 10_000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!existsSync(CLI))('signals (needs `npm run build`)', () => {
  it('SIGINT: stops sending, cancels what is still in flight after the grace period, writes the summary, exits 130', async () => {
    // Every stream sends one token and then hangs: nothing would ever finish on its own.
    server = await startScriptServer(() => ({ steps: [{ at: 0, write: chatChunk({ content: 'a' }) }], hang: true }));
    const out = join(tmpDir(), 'run');
    const p = start(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '50', '--concurrency', '4', '--grace-period', '0.5s', '--out', out]);
    await waitFor(() => server!.bodies.length >= 4);
    p.child.kill('SIGINT');
    const code = await p.exited;
    expect(code).toBe(130);
    expect(p.err()).toMatch(/SIGINT: stopping/);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.run.stopped_reason).toBe('interrupted');
    expect(summary.requests.cancelled).toBe(4);
    expect(server.bodies.length).toBe(4); // nothing sent after the signal
    expect(p.out()).toMatch(/STOPPED: interrupted; 4 requests still in flight after the grace period were cancelled/);
  });

  it('SIGTERM with a grace period long enough: says every in-flight request finished, and none was cancelled', async () => {
    // Each answer takes 400 ms: the requests in flight at the signal finish well within the 20 s grace period.
    const answer = chatChunk({ content: 'a' }) + 'data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":1}}\n\ndata: [DONE]\n\n';
    server = await startScriptServer(() => ({ steps: [{ at: 400, write: answer }] }));
    const out = join(tmpDir(), 'run');
    const p = start(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '500', '--concurrency', '4', '--grace-period', '20s', '--out', out]);
    await waitFor(() => server!.bodies.length >= 4);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(143);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary.requests.cancelled).toBe(0);
    const inFlight = summary.run.in_flight_at_stop;
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(4);
    expect(summary.requests.ok).toBe(server.bodies.length);
    expect(p.out()).toContain(`STOPPED: interrupted; all ${inFlight} in-flight request${inFlight === 1 ? '' : 's'} finished within the grace period`);
    expect(p.out()).not.toMatch(/cancelled/);
  });

  it('SIGTERM exits 143; a second Ctrl-C exits at once and `report` rebuilds from what is on disk', async () => {
    server = await startScriptServer((_b, n) => (n < 3 ? { steps: [{ at: 0, write: chatChunk({ content: 'a' }) + 'data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":1}}\n\ndata: [DONE]\n\n' }] } : { steps: [], hang: true, headersAt: 60_000 }));
    const out = join(tmpDir(), 'run');
    const p = start(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '50', '--concurrency', '1', '--grace-period', '60s', '--out', out]);
    await waitFor(() => server!.bodies.length >= 4);
    p.child.kill('SIGINT');
    await waitFor(() => p.err().includes('stopping'));
    p.child.kill('SIGINT');
    expect(await p.exited).toBe(130);
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
    const { summary } = rebuildSummary(out);
    expect(summary.requests.ok).toBe(3);

    server.bodies.length = 0;
    const out2 = join(tmpDir(), 'run');
    const q = start(['run', '--no-validate', '--base-url', server.baseUrl, '--requests', '50', '--concurrency', '1', '--grace-period', '0.2s', '--out', out2]);
    await waitFor(() => server!.bodies.length >= 1);
    q.child.kill('SIGTERM');
    expect(await q.exited).toBe(143);
    expect(existsSync(join(out2, 'summary.json'))).toBe(true);
  });
});
