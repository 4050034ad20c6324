// Delays past the longest Node.js timer (2^31 − 1 ms) are refused up front; Retry-After waits are capped by --max-retry-wait.
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { main } from '../src/cli/main.js';
import { run } from '../src/run.js';
import { resolveRunConfig } from '../src/config/load.js';
import { startScriptServer, chatChunk, usageChunk, DONE, type Script, type ScriptServer } from './fixtures/script-server.js';
import { tmpDir } from './helpers.js';
import { capture } from './io-capture.js';

describe('durations beyond the longest timer: exit 2 naming the flag and the limit, nothing sent', () => {
  let server: ScriptServer;
  beforeAll(async () => {
    server = await startScriptServer(() => ({ steps: [] }));
  });
  afterAll(() => server.close());

  const run = (...a: string[]) => ['run', ...a];
  const cases: [string, string[], string][] = [
    ['--timeout of 2147484 s', run('--timeout', '2147484'), '--timeout'],
    ['--timeout of 100000h', run('--timeout', '100000h'), '--timeout'],
    ['--idle-timeout', run('--idle-timeout', '600000h'), '--idle-timeout'],
    ['--grace-period', run('--grace-period', '2147484s'), '--grace-period'],
    ['--duration', run('--duration', '600000h'), '--duration'],
    ['--think-time', run('--think-time', '600000h'), '--think-time'],
    ['--max-retry-wait', run('--retry', '1', '--max-retry-wait', '600000h'), '--max-retry-wait'],
    ['sweep --duration', ['sweep', '--concurrency', '1', '--duration', '600000h'], '--duration'],
    ['serve --fault stall ms', ['serve', '--port', '0', '--fault', 'stall:1,ms=2147483648'], 'stall'],
    ['serve --fault heartbeat intervalMs', ['serve', '--port', '0', '--fault', 'heartbeat:1,intervalMs=2147483648'], 'heartbeat'],
  ];
  for (const [name, args, flag] of cases) {
    it(name, async () => {
      const full = args[0] === 'run' || args[0] === 'sweep' ? [...args, '--base-url', server.baseUrl, '--quiet'] : args;
      const before = server.bodies.length;
      const c = capture();
      const code = await main(full, c.io);
      expect(code, c.err).toBe(2);
      expect(c.err).toContain(flag);
      expect(c.err).toMatch(/at most 24\.8 days/);
      expect(server.bodies.length).toBe(before);
    });
  }

  it('the longest accepted value is still accepted (24.8 days)', async () => {
    const c = capture();
    const code = await main(['run', '--no-validate', '--base-url', server.baseUrl, '--quiet', '--timeout', '2147483s', '--requests', '1', '--out', tmpDir()], c.io);
    // The scripted server answers with an empty stream: the run works, the request is an `empty` record.
    expect(code, c.err).toBe(0);
    expect(server.bodies.length).toBeGreaterThan(0);
  });
});

const ok = (): Script => ({ steps: [{ at: 0, write: chatChunk({ content: 'a' }) + usageChunk(8, 1) + DONE }] });
const tooMany = (retryAfter: string): Script => ({
  status: 429,
  headers: { 'content-type': 'application/json', 'retry-after': retryAfter },
  steps: [{ at: 0, write: '{"error":"slow down"}' }],
});

describe.each(['h1', 'undici'] as const)('Retry-After beyond --max-retry-wait (transport %s)', (transport) => {
  let server: ScriptServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const once = async (retryAfter: string, extra: Record<string, unknown> = {}) => {
    server = await startScriptServer((_b, n) => (n === 0 ? tooMany(retryAfter) : ok()));
    const res = await run({ validate: false, baseUrl: server.baseUrl, requests: 1, concurrency: 1, inputTokens: 8, outputTokens: 1, out: tmpDir(), quiet: true, retry: 2, transport, ...extra });
    return { res };
  };

  // Before the fix: 99999999 s overflowed the timer and was retried after 1 ms; 3600 s held the slot for an hour.
  for (const retryAfter of ['99999999', '3600']) {
    it(`Retry-After: ${retryAfter} is not retried (default --max-retry-wait 60s); the 429 is the outcome`, async () => {
      const { res } = await once(retryAfter);
      expect(res.records.map((r) => [r.attempt, r.status, r.http_status])).toEqual([[1, 'http_error', 429]]);
      expect(res.summary.requests.failed).toBe(1);
      expect(server!.bodies).toHaveLength(1);
    });
  }

  it('a Retry-After within --max-retry-wait is honoured', async () => {
    const { res } = await once('0.3', { maxRetryWait: '1s' });
    expect(res.records.map((r) => [r.attempt, r.status])).toEqual([
      [1, 'http_error'],
      [2, 'ok'],
    ]);
    const gap = res.records[1].sent_at_ms - (res.records[0].sent_at_ms + res.records[0].end_ms!);
    expect(gap).toBeGreaterThanOrEqual(300 - 2); // a timer may fire ~1 ms early
  });

  it('a Retry-After above a short --max-retry-wait is not retried', async () => {
    const { res } = await once('2', { maxRetryWait: '500ms' });
    expect(res.records.map((r) => [r.attempt, r.status])).toEqual([[1, 'http_error']]);
  });
});

describe('--grace-period 0', () => {
  it('is accepted: a stop cancels what is in flight at once', () => {
    expect(resolveRunConfig({ flags: { gracePeriod: '0' } }).config.gracePeriod).toBe(0);
    expect(resolveRunConfig({ flags: { gracePeriod: '0s' } }).config.gracePeriod).toBe(0);
  });
});
