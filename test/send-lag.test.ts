// The client's send lag in closed loop counts from when the request was ready, not from when its slot freed.
import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/run.js';
import { startEchoServer } from './workload-fixtures.js';
import { tmpDir } from './helpers.js';

let server: Awaited<ReturnType<typeof startEchoServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('send lag', () => {
  it('closed loop: waiting for think time (building the next turn) is not send lag', async () => {
    // 4 conversations of 2 turns; each second turn waits 300 ms of think time after the first one's answer.
    const convs = Array.from({ length: 4 }, (_, c) => ({
      conversations: [0, 1].flatMap((t) => [{ from: 'human', value: `conv ${c} turn ${t}` }, { from: 'gpt', value: 'recorded' }]),
    }));
    const f = join(tmpDir(), 'multi.json');
    writeFileSync(f, JSON.stringify(convs));
    server = await startEchoServer(() => 'ok', () => 1, 2);
    const res = await run({ validate: false, baseUrl: server.baseUrl, concurrency: 2, dataset: f, datasetMode: 'once', thinkTime: '300ms', out: tmpDir(), quiet: true });
    expect(res.records).toHaveLength(8);
    const lag = res.summary.client!.send_lag_ms;
    expect(lag.count).toBe(8);
    // Before the fix the 300 ms think time counted as the client's own lateness. 100 ms leaves room for a busy machine.
    expect(lag.max).toBeLessThan(100);
  });
});
