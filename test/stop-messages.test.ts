// The first Ctrl-C's message says what then happens: nothing to wait for before any request, the grace period after.
import { describe, it, expect, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHostileServer, type HostileServer } from './fixtures/hostile-server.js';
import { startScriptServer, chatChunk, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';

const CLI = join(__dirname, '..', 'dist', 'bin', 'tokenflood.js');
let server: ScriptServer | HostileServer | undefined;
const timers = new Set<NodeJS.Timeout>();
afterEach(async () => {
  for (const t of timers) clearInterval(t);
  timers.clear();
  await server?.close();
  server = undefined;
});

function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += String(c)));
  child.stdout.resume();
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, err: () => err };
}

async function waitFor(cond: () => boolean, ms = 20_000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!existsSync(CLI))('stop messages (needs `npm run build`)', () => {
  it('run: Ctrl-C during the preflight says "stopping", without promising a grace period to requests never sent', async () => {
    // GET /models dribbles a body that never ends: the CLI is stuck in the preflight.
    const hs = await startHostileServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const t = setInterval(() => res.write(' '), 50);
      timers.add(t);
      res.on('close', () => clearInterval(t));
    });
    server = hs;
    const p = start(['run', '--no-validate', '--base-url', `${hs.origin}/v1`, '--requests', '1', '--out', join(tmpDir(), 'run')]);
    await waitFor(() => hs.seen.length > 0);
    p.child.kill('SIGINT');
    expect(await p.exited, p.err()).toBe(130);
    expect(p.err()).toMatch(/SIGINT: stopping \(press Ctrl-C again to exit now\)/);
    expect(p.err()).not.toMatch(/in flight/);
    expect(p.err()).toMatch(/interrupted during the preflight/);
    expect(hs.seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('sweep: Ctrl-C during a point says its requests in flight get the grace period, and they do finish ok', async () => {
    // Each answer takes 500 ms, well within the 20 s grace period.
    const answer = chatChunk({ content: 'a' }) + 'data: {"choices":[],"usage":{"prompt_tokens":8,"completion_tokens":1}}\n\ndata: [DONE]\n\n';
    const ss = await startScriptServer(() => ({ steps: [{ at: 500, write: answer }] }));
    server = ss;
    const out = join(tmpDir(), 'sweep');
    const p = start(['sweep', '--no-validate', '--base-url', ss.baseUrl, '--concurrency', '2,4', '--requests', '40', '--grace-period', '20s', '--out', out, '--quiet']);
    await waitFor(() => ss.bodies.length >= 2);
    p.child.kill('SIGINT');
    expect(await p.exited, p.err()).toBe(130);
    expect(p.err()).toMatch(
      /SIGINT: stopping the sweep: no further points; the current point sends no new requests, and those in flight get up to 20 s \(--grace-period\) to finish, then are cancelled and recorded/,
    );
    expect(p.err()).not.toMatch(/in-flight requests are cancelled/);
    const doc = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(doc.interrupted).toBe(true);
    expect(doc.points).toHaveLength(1);
    // Every request sent finished within the grace period: none was cancelled.
    expect(doc.points[0].ok).toBe(ss.bodies.length);
    expect(ss.bodies.length).toBeLessThan(40);
  });
});
